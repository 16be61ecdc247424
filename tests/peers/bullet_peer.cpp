/* bullet_peer.cpp — the peer scenes (../shared/peer-scenes.md) in Bullet 3.24,
 * written against its public API for `make bench-peers`.
 *
 *     bullet_peer LAYOUT.txt on|off        (sleeping on or off)
 *
 * The settings the spec calls a fair baseline: btDiscreteDynamicsWorld with the
 * default collision configuration, the dbvt broadphase and the sequential
 * impulse solver with its default solver info (10 iterations, split impulse),
 * stepSimulation(dt, 1, dt), one thread. Bullet combines friction and
 * restitution by product, so every body (the ground too) gets the square root
 * of the combined value. Rings are GImpact meshes (what Bullet offers for
 * moving concave meshes) with the solid torus's inertia; the terrain is a
 * btBvhTriangleMeshShape. Only stepSimulation is timed.
 */
#include <btBulletDynamicsCommon.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include "peer_common.h"

static peer_layout layout;

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bullet_peer LAYOUT.txt on|off\n");
        return 2;
    }
    if (peer_read_layout(argv[1], &layout)) return 1;
    bool sleep = strcmp(argv[2], "on") == 0;
    const char *scene = layout.scene;
    btScalar mu = (btScalar)sqrt(layout.friction), e = (btScalar)sqrt(layout.restitution);

    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    world.setGravity(btVector3(0, -9.81f, 0));
    btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);

    /* the static ground */
    btCollisionShape *ground = NULL;
    btTransform ground_pose;
    ground_pose.setIdentity();
    static float terrain_v[65 * 65 * 3];
    static int terrain_t[64 * 64 * 6];
    btTriangleIndexVertexArray *terrain_array = NULL;
    if (strcmp(scene, "incline") == 0) {
        const double a = 30.0 * 3.14159265358979323846 / 180.0;
        ground = new btBoxShape(btVector3(10, 0.5f, 5));
        ground_pose.setRotation(btQuaternion(btVector3(0, 0, 1), (btScalar)a));
        ground_pose.setOrigin(btVector3((btScalar)(0.5 * sin(a)), (btScalar)(-0.5 * cos(a)), 0));
    } else if (strcmp(scene, "terrain") == 0) {
        peer_terrain_mesh(terrain_v, terrain_t);
        terrain_array = new btTriangleIndexVertexArray(64 * 64 * 2, terrain_t, 3 * sizeof(int), 65 * 65, terrain_v,
                                                       3 * sizeof(float));
        ground = new btBvhTriangleMeshShape(terrain_array, true);
    } else {
        ground = new btStaticPlaneShape(btVector3(0, 1, 0), 0);
    }
    btRigidBody::btRigidBodyConstructionInfo gi(0, NULL, ground);
    gi.m_startWorldTransform = ground_pose;
    gi.m_friction = mu;
    gi.m_restitution = e;
    btRigidBody *ground_body = new btRigidBody(gi);
    world.addRigidBody(ground_body);

    /* the dynamic bodies, 1 kg each */
    static float torus_v[200 * 3];
    static int torus_t[400 * 3];
    btTriangleIndexVertexArray *torus_array = NULL;
    btGImpactMeshShape *torus = NULL;
    btSphereShape *sphere = NULL;
    btBoxShape *box = NULL;
    btRigidBody **bodies = new btRigidBody *[layout.count];
    for (int i = 0; i < layout.count; ++i) {
        const peer_body *b = &layout.body[i];
        btCollisionShape *shape;
        btVector3 inertia;
        if (b->kind == PEER_SPHERE) {
            if (!sphere) sphere = new btSphereShape((btScalar)b->size[0]);
            shape = sphere;
            shape->calculateLocalInertia(1, inertia);
        } else if (b->kind == PEER_BOX) {
            if (!box) box = new btBoxShape(btVector3((btScalar)b->size[0], (btScalar)b->size[1], (btScalar)b->size[2]));
            shape = box;
            shape->calculateLocalInertia(1, inertia);
        } else {
            if (!torus) {
                peer_torus_mesh(b->size[0], b->size[1], torus_v, torus_t);
                torus_array = new btTriangleIndexVertexArray(400, torus_t, 3 * sizeof(int), 200, torus_v, 3 * sizeof(float));
                torus = new btGImpactMeshShape(torus_array);
                torus->updateBound();
            }
            shape = torus;
            double in[3];
            peer_torus_inertia(1, b->size[0], b->size[1], in);
            inertia = btVector3((btScalar)in[0], (btScalar)in[1], (btScalar)in[2]);
        }
        btTransform t;
        t.setOrigin(btVector3((btScalar)b->p[0], (btScalar)b->p[1], (btScalar)b->p[2]));
        t.setRotation(btQuaternion((btScalar)b->q[0], (btScalar)b->q[1], (btScalar)b->q[2], (btScalar)b->q[3]));
        btRigidBody::btRigidBodyConstructionInfo ci(1, NULL, shape, inertia);
        ci.m_startWorldTransform = t;
        ci.m_friction = mu;
        ci.m_restitution = e;
        bodies[i] = new btRigidBody(ci);
        bodies[i]->setLinearVelocity(btVector3((btScalar)b->v[0], (btScalar)b->v[1], (btScalar)b->v[2]));
        bodies[i]->setAngularVelocity(btVector3((btScalar)b->w[0], (btScalar)b->w[1], (btScalar)b->w[2]));
        if (!sleep) bodies[i]->setActivationState(DISABLE_DEACTIVATION);
        world.addRigidBody(bodies[i]);
    }

    double *ms = new double[PEER_STEPS], *cpu = new double[PEER_STEPS], max_rise = 0;
    for (int f = 0; f < PEER_STEPS; ++f) {
        double t0 = peer_now_ms(), c0 = peer_cpu_ms();
        world.stepSimulation((btScalar)PEER_DT, 1, (btScalar)PEER_DT);
        ms[f] = peer_now_ms() - t0;
        cpu[f] = peer_cpu_ms() - c0;
        for (int i = 0; i < layout.count; ++i) {
            double rise = bodies[i]->getCenterOfMassPosition().y() - layout.body[i].p[1];
            if (rise > max_rise) max_rise = rise;
        }
    }
    double *poses = new double[7 * layout.count];
    for (int i = 0; i < layout.count; ++i) {
        const btTransform &t = bodies[i]->getCenterOfMassTransform();
        btQuaternion q = t.getRotation();
        double *p = poses + 7 * i;
        p[0] = t.getOrigin().x(), p[1] = t.getOrigin().y(), p[2] = t.getOrigin().z();
        p[3] = q.x(), p[4] = q.y(), p[5] = q.z(), p[6] = q.w();
    }
    peer_report("bullet", scene, sleep, ms, cpu, PEER_STEPS, max_rise, poses, layout.count);
    /* the process ends here; the OS takes the heap back */
    return 0;
}
