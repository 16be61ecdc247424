/* bullet_peer.cpp — the peer scenes (../shared/peer-scenes.md) in Bullet 3.24,
 * written against its public API for `make bench-peers`.
 *
 *     bullet_peer LAYOUT.txt on|off        (sleeping on or off)
 *     bullet_peer --queries QUERIES.txt [ROUNDS]   (rays and overlaps: `make bench-queries`)
 *
 * The settings the spec calls a fair baseline: btDiscreteDynamicsWorld with the
 * default collision configuration, the dbvt broadphase and the sequential
 * impulse solver with its default solver info (10 iterations, split impulse),
 * stepSimulation(dt, 1, dt), one thread. Bullet combines friction and
 * restitution by product, so every body (the ground too) gets the square root
 * of the combined value. Rings are GImpact meshes (what Bullet offers for
 * moving concave meshes) with the solid torus's inertia; the terrain is a
 * btBvhTriangleMeshShape. Only stepSimulation is timed.
 *
 * The query mode (run_queries) reads what `crumple bench queries --export`
 * wrote: the bodies where crumple's run left them, the rays and the spheres.
 * It builds the same bodies as the step mode does (spheres, boxes, GImpact
 * tori, a static plane), lets the dbvt broadphase optimise its trees top
 * down, and times rayTest with a ClosestRayResultCallback per ray and
 * contactTest of a sphere collision object per overlap, counting the bodies
 * each touches. Only the query calls are timed.
 */
#include <btBulletDynamicsCommon.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include "peer_common.h"

#include <vector>

static peer_layout layout;

/* contactTest's callback: the distinct bodies one sphere touches */
struct overlap_count : btCollisionWorld::ContactResultCallback {
    const btCollisionObject *seen[64];
    int n = 0;
    btScalar addSingleResult(btManifoldPoint &cp, const btCollisionObjectWrapper *a, int, int,
                             const btCollisionObjectWrapper *b, int, int) override {
        if (cp.getDistance() > 0) return 0; /* within the contact threshold but apart: not an overlap */
        const btCollisionObject *o = a->getCollisionObject() == probe ? b->getCollisionObject() : a->getCollisionObject();
        for (int i = 0; i < n; ++i)
            if (seen[i] == o) return 0;
        if (n < 64) seen[n++] = o;
        return 0;
    }
    const btCollisionObject *probe = NULL;
};

static int run_queries(const char *path, int rounds) {
    FILE *f = fopen(path, "r");
    char scene[32];
    if (!f || fscanf(f, " queries %31s", scene) != 1) {
        fprintf(stderr, "%s: not a queries file\n", path);
        if (f) fclose(f);
        return 1;
    }
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &config);
    btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
    static float torus_v[200 * 3];
    static int torus_t[400 * 3];
    btGImpactMeshShape *torus = NULL;
    btSphereShape *sphere = NULL;
    btBoxShape *box = NULL;
    std::vector<double> rays, spheres;
    long long crumple_hits = -1, crumple_found = -1;
    int bodies = 0;
    char kind[32];
    while (fscanf(f, " %31s", kind) == 1) {
        double v[10];
        btCollisionShape *shape = NULL;
        int extra = 0;
        if (strcmp(kind, "ray") == 0) {
            if (fscanf(f, "%lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6) break;
            rays.insert(rays.end(), v, v + 6);
            continue;
        } else if (strcmp(kind, "overlap") == 0) {
            if (fscanf(f, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) != 4) break;
            spheres.insert(spheres.end(), v, v + 4);
            continue;
        } else if (strcmp(kind, "crumple_hits") == 0) {
            if (fscanf(f, "%lld crumple_found %lld", &crumple_hits, &crumple_found) != 2) break;
            continue;
        } else if (strcmp(kind, "plane") == 0) {
            shape = new btStaticPlaneShape(btVector3(0, 1, 0), 0);
        } else if (strcmp(kind, "sphere") == 0 && fscanf(f, "%lf", &v[0]) == 1) {
            if (!sphere) sphere = new btSphereShape((btScalar)v[0]);
            shape = sphere, extra = 1;
        } else if (strcmp(kind, "box") == 0 && fscanf(f, "%lf %lf %lf", &v[0], &v[1], &v[2]) == 3) {
            if (!box) box = new btBoxShape(btVector3((btScalar)v[0], (btScalar)v[1], (btScalar)v[2]));
            shape = box, extra = 3;
        } else if (strcmp(kind, "torus") == 0 && fscanf(f, "%lf %lf", &v[0], &v[1]) == 2) {
            if (!torus) {
                peer_torus_mesh(v[0], v[1], torus_v, torus_t);
                torus = new btGImpactMeshShape(new btTriangleIndexVertexArray(400, torus_t, 3 * sizeof(int), 200, torus_v,
                                                                               3 * sizeof(float)));
                torus->updateBound();
            }
            shape = torus, extra = 2;
        } else {
            fprintf(stderr, "%s: bad line '%s'\n", path, kind);
            fclose(f);
            return 1;
        }
        btTransform t;
        t.setIdentity();
        if (extra > 0) {
            double p[7];
            if (fscanf(f, "%lf %lf %lf %lf %lf %lf %lf", &p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &p[6]) != 7) break;
            t.setOrigin(btVector3((btScalar)p[0], (btScalar)p[1], (btScalar)p[2]));
            t.setRotation(btQuaternion((btScalar)p[3], (btScalar)p[4], (btScalar)p[5], (btScalar)p[6]));
        }
        btRigidBody::btRigidBodyConstructionInfo ci(0, NULL, shape);
        ci.m_startWorldTransform = t;
        world.addRigidBody(new btRigidBody(ci));
        ++bodies;
    }
    fclose(f);
    world.updateAabbs();
    /* the best trees dbvt can make (top down all the way: its bottom-up pass frees a wrong pointer in Bullet 3.24) */
    for (int i = 0; i < 2; ++i)
        if (broadphase.m_sets[i].m_leaves > 1) broadphase.m_sets[i].optimizeTopDown(2);
    size_t nrays = rays.size() / 6, nspheres = spheres.size() / 4;
    long long hits = 0, found = 0;
    btSphereShape probe_shape(nspheres ? (btScalar)spheres[3] : 1);
    btCollisionObject probe;
    probe.setCollisionShape(&probe_shape);
    /* the least CPU time of the rounds, as crumple's side */
    double ray_ms = 1e30, overlap_ms = 1e30;
    for (int round = 0; round < rounds; ++round) {
        hits = found = 0;
        double t0 = peer_cpu_ms();
        for (size_t k = 0; k < nrays; ++k) {
            const double *r = &rays[6 * k];
            btVector3 from((btScalar)r[0], (btScalar)r[1], (btScalar)r[2]);
            btVector3 to((btScalar)(r[0] + r[3]), (btScalar)(r[1] + r[4]), (btScalar)(r[2] + r[5]));
            btCollisionWorld::ClosestRayResultCallback cb(from, to);
            world.rayTest(from, to, cb);
            hits += cb.hasHit();
        }
        double t1 = peer_cpu_ms();
        for (size_t k = 0; k < nspheres; ++k) {
            const double *c = &spheres[4 * k];
            btTransform t;
            t.setIdentity();
            t.setOrigin(btVector3((btScalar)c[0], (btScalar)c[1], (btScalar)c[2]));
            probe.setWorldTransform(t);
            overlap_count cb;
            cb.probe = &probe;
            world.contactTest(&probe, cb);
            found += cb.n;
        }
        double t2 = peer_cpu_ms();
        ray_ms = fmin(ray_ms, t1 - t0), overlap_ms = fmin(overlap_ms, t2 - t1);
    }
    printf("{\"engine\":\"bullet\",\"scene\":\"%s\",\"bodies\":%d,\"rays\":%zu,\"ray_ms\":%.3f,\"rays_per_s\":%.0f,"
           "\"ray_hits\":%lld,\"overlaps\":%zu,\"overlap_ms\":%.3f,\"overlaps_per_s\":%.0f,\"bodies_found\":%lld,"
           "\"crumple_ray_hits\":%lld,\"crumple_bodies_found\":%lld}\n",
           scene, bodies, nrays, ray_ms, nrays / (ray_ms * 1e-3), hits, nspheres, overlap_ms,
           nspheres / (overlap_ms * 1e-3), found, crumple_hits, crumple_found);
    return 0;
}

int main(int argc, char **argv) {
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--queries") == 0)
        return run_queries(argv[2], argc == 4 ? atoi(argv[3]) > 0 ? atoi(argv[3]) : 1 : 1);
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
