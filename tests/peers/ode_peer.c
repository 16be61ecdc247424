/* ode_peer.c — the peer scenes (../shared/peer-scenes.md) in ODE 0.16, written
 * against its public API for `make bench-peers`.
 *
 *     ode_peer LAYOUT.txt
 *
 * The settings the spec calls a fair baseline: dWorldQuickStep with 20
 * iterations, a hash space, auto-disable off (ODE's sleeping), contacts with
 * dContactApprox1, bounce above 0.2 m/s, at most 8 contacts per pair. The near
 * callback gives every contact the combined friction and restitution directly.
 * Rings are trimesh geoms with the solid torus's inertia, the terrain one
 * static trimesh. Only dWorldQuickStep and the collision pass before it (the
 * dSpaceCollide that finds the contacts) are timed: together they are ODE's step.
 */
#include <ode/ode.h>

#include "peer_common.h"

#define ODE_MAX_CONTACTS 8

typedef struct ode_ctx {
    dWorldID world;
    dJointGroupID contacts;
    double mu, e;
} ode_ctx;

static void near_callback(void *data, dGeomID a, dGeomID b) {
    ode_ctx *c = (ode_ctx *)data;
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    if (!ba && !bb) return; /* static against static */
    dContact contact[ODE_MAX_CONTACTS];
    int n = dCollide(a, b, ODE_MAX_CONTACTS, &contact[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
        contact[i].surface.mode = dContactApprox1 | dContactBounce;
        contact[i].surface.mu = c->mu;
        contact[i].surface.bounce = c->e;
        contact[i].surface.bounce_vel = 0.2;
        dJointID j = dJointCreateContact(c->world, c->contacts, &contact[i]);
        dJointAttach(j, ba, bb);
    }
}

static peer_layout layout;
static float terrain_v[65 * 65 * 3];
static int terrain_t[64 * 64 * 6];
static float torus_v[200 * 3];
static int torus_t[400 * 3];
static double ms[PEER_STEPS], cpu[PEER_STEPS];
static double poses[7 * PEER_MAX_BODIES];
static dBodyID bodies[PEER_MAX_BODIES];

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ode_peer LAYOUT.txt\n");
        return 2;
    }
    if (peer_read_layout(argv[1], &layout)) return 1;
    const char *scene = layout.scene;
    dInitODE2(0);
    ode_ctx c;
    c.world = dWorldCreate();
    c.contacts = dJointGroupCreate(0);
    c.mu = layout.friction;
    c.e = layout.restitution;
    dSpaceID space = dHashSpaceCreate(0);
    dWorldSetGravity(c.world, 0, -9.81, 0);
    dWorldSetQuickStepNumIterations(c.world, 20);
    dWorldSetAutoDisableFlag(c.world, 0);

    if (strcmp(scene, "incline") == 0) {
        const double a = 30.0 * 3.14159265358979323846 / 180.0;
        dGeomID slab = dCreateBox(space, 20, 1, 10);
        dMatrix3 r;
        dRFromAxisAndAngle(r, 0, 0, 1, a);
        dGeomSetRotation(slab, r);
        dGeomSetPosition(slab, 0.5 * sin(a), -0.5 * cos(a), 0);
    } else if (strcmp(scene, "terrain") == 0) {
        peer_terrain_mesh(terrain_v, terrain_t);
        dTriMeshDataID d = dGeomTriMeshDataCreate();
        dGeomTriMeshDataBuildSingle(d, terrain_v, 3 * sizeof(float), 65 * 65, terrain_t, 64 * 64 * 6, 3 * sizeof(int));
        dCreateTriMesh(space, d, NULL, NULL, NULL);
    } else {
        dCreatePlane(space, 0, 1, 0, 0);
    }

    dTriMeshDataID torus = NULL;
    for (int i = 0; i < layout.count; ++i) {
        const peer_body *b = &layout.body[i];
        dBodyID body = dBodyCreate(c.world);
        dMass m;
        dGeomID g;
        if (b->kind == PEER_SPHERE) {
            dMassSetSphereTotal(&m, 1, b->size[0]);
            g = dCreateSphere(space, b->size[0]);
        } else if (b->kind == PEER_BOX) {
            dMassSetBoxTotal(&m, 1, 2 * b->size[0], 2 * b->size[1], 2 * b->size[2]);
            g = dCreateBox(space, 2 * b->size[0], 2 * b->size[1], 2 * b->size[2]);
        } else {
            if (!torus) {
                peer_torus_mesh(b->size[0], b->size[1], torus_v, torus_t);
                torus = dGeomTriMeshDataCreate();
                dGeomTriMeshDataBuildSingle(torus, torus_v, 3 * sizeof(float), 200, torus_t, 400 * 3, 3 * sizeof(int));
            }
            double in[3];
            peer_torus_inertia(1, b->size[0], b->size[1], in);
            dMassSetParameters(&m, 1, 0, 0, 0, in[0], in[1], in[2], 0, 0, 0);
            g = dCreateTriMesh(space, torus, NULL, NULL, NULL);
        }
        dBodySetMass(body, &m);
        dGeomSetBody(g, body);
        dBodySetPosition(body, b->p[0], b->p[1], b->p[2]);
        dQuaternion q = {b->q[3], b->q[0], b->q[1], b->q[2]}; /* ODE: w x y z */
        dBodySetQuaternion(body, q);
        dBodySetLinearVel(body, b->v[0], b->v[1], b->v[2]);
        dBodySetAngularVel(body, b->w[0], b->w[1], b->w[2]);
        bodies[i] = body;
    }

    double max_rise = 0;
    for (int f = 0; f < PEER_STEPS; ++f) {
        double t0 = peer_now_ms(), c0 = peer_cpu_ms();
        dSpaceCollide(space, &c, near_callback);
        dWorldQuickStep(c.world, PEER_DT);
        dJointGroupEmpty(c.contacts);
        ms[f] = peer_now_ms() - t0;
        cpu[f] = peer_cpu_ms() - c0;
        for (int i = 0; i < layout.count; ++i) {
            double rise = dBodyGetPosition(bodies[i])[1] - layout.body[i].p[1];
            if (rise > max_rise) max_rise = rise;
        }
    }
    for (int i = 0; i < layout.count; ++i) {
        const dReal *p = dBodyGetPosition(bodies[i]), *q = dBodyGetQuaternion(bodies[i]);
        double *o = poses + 7 * i;
        o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = q[1], o[4] = q[2], o[5] = q[3], o[6] = q[0];
    }
    peer_report("ode", scene, 0, ms, cpu, PEER_STEPS, max_rise, poses, layout.count);
    dCloseODE();
    return 0;
}
