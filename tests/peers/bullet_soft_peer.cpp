// bullet_soft_peer.cpp — issue 16's soft_pile in Bullet's btSoftBody, for the
// side-by-side of docs/mass-spring.md. Reads the scene `crumple bench soft
// --export FILE` wrote (the same walls, and every body's particles and
// triangles as crumple created them: same meshes, same particle counts),
// steps it 600 times at 1/60 s and prints ms/step and how many particles
// ended inside another body (winding number) or outside the box.
//
// Build (Debian's libbullet-dev):
//   g++ -O2 $(pkg-config --cflags bullet) tests/peers/bullet_soft_peer.cpp -o build/peers/bullet_soft_peer $(pkg-config --libs bullet)
// Run:
//   build/bin/crumple bench soft --export /tmp/pile.txt && build/peers/bullet_soft_peer /tmp/pile.txt
//
// Stiffness "as near as the models allow": Bullet's springs take a linear
// stiffness coefficient kLST in [0, 1] (a fraction of a full position
// projection per iteration), not N/m; the peer uses kLST = kAST = 0.5 with
// bending constraints across each edge (distance 2), volume conservation
// kVC = 20 (setPose(true, false)), friction kDF from the file, and Bullet's
// default 1 position iteration raised to 8 (crumple's 8 substeps).
#include <btBulletDynamicsCommon.h>
#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <BulletSoftBody/btDefaultSoftBodySolver.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

struct Body {
    std::vector<btScalar> v;
    std::vector<int> t;
    double mass = 1, friction = 0.5;
};

static double winding(const std::vector<int> &tri, const btSoftBody *sb, const btVector3 &q) {
    double total = 0;
    for (size_t k = 0; k + 2 < tri.size(); k += 3) {
        double v[3][3], l[3];
        for (int c = 0; c < 3; ++c) {
            const btVector3 &p = sb->m_nodes[tri[k + c]].m_x;
            v[c][0] = p.x() - q.x(), v[c][1] = p.y() - q.y(), v[c][2] = p.z() - q.z();
            l[c] = std::sqrt(v[c][0] * v[c][0] + v[c][1] * v[c][1] + v[c][2] * v[c][2]);
        }
        double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                     v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        double d01 = v[0][0] * v[1][0] + v[0][1] * v[1][1] + v[0][2] * v[1][2];
        double d12 = v[1][0] * v[2][0] + v[1][1] * v[2][1] + v[1][2] * v[2][2];
        double d20 = v[2][0] * v[0][0] + v[2][1] * v[0][1] + v[2][2] * v[0][2];
        total += 2 * std::atan2(det, l[0] * l[1] * l[2] + d01 * l[2] + d12 * l[0] + d20 * l[1]);
    }
    return total / (4 * M_PI);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bullet_soft_peer PILE.txt (from crumple bench soft --export)\n");
        return 2;
    }
    FILE *f = std::fopen(argv[1], "r");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    int steps = 600;
    double dt = 1.0 / 60.0;
    std::vector<std::vector<double>> walls;
    std::vector<Body> bodies;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        double a[6];
        unsigned nv, nt;
        double m, k, kb, kv, mu;
        if (std::sscanf(line, "steps %d dt %lf", &steps, &dt) == 2) continue;
        if (std::sscanf(line, "wall %lf %lf %lf %lf %lf %lf", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
            walls.push_back(std::vector<double>(a, a + 6));
            continue;
        }
        if (std::sscanf(line, "body %u %u mass %lf stiffness %lf bend %lf volume %lf friction %lf", &nv, &nt, &m, &k, &kb, &kv, &mu) == 7) {
            Body b;
            b.mass = m, b.friction = mu;
            for (unsigned i = 0; i < nv && std::fgets(line, sizeof line, f); ++i) {
                double x, y, z;
                std::sscanf(line, "v %lf %lf %lf", &x, &y, &z);
                b.v.push_back((btScalar)x), b.v.push_back((btScalar)y), b.v.push_back((btScalar)z);
            }
            for (unsigned i = 0; i < nt && std::fgets(line, sizeof line, f); ++i) {
                int p, q, r;
                std::sscanf(line, "t %d %d %d", &p, &q, &r);
                b.t.push_back(p), b.t.push_back(q), b.t.push_back(r);
            }
            bodies.push_back(b);
        }
    }
    std::fclose(f);

    btSoftBodyRigidBodyCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDefaultSoftBodySolver soft_solver;
    btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &config, &soft_solver);
    world.setGravity(btVector3(0, -9.81f, 0));
    btSoftBodyWorldInfo &info = world.getWorldInfo();
    info.m_gravity = btVector3(0, -9.81f, 0);
    info.m_sparsesdf.Initialize();

    std::vector<btCollisionShape *> shapes;
    std::vector<btRigidBody *> rigid;
    btStaticPlaneShape *plane = new btStaticPlaneShape(btVector3(0, 1, 0), 0);
    shapes.push_back(plane);
    rigid.push_back(new btRigidBody(0, nullptr, plane));
    for (auto &w : walls) {
        btBoxShape *box = new btBoxShape(btVector3((btScalar)w[3], (btScalar)w[4], (btScalar)w[5]));
        shapes.push_back(box);
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3((btScalar)w[0], (btScalar)w[1], (btScalar)w[2]));
        btRigidBody::btRigidBodyConstructionInfo ci(0, new btDefaultMotionState(t), box);
        rigid.push_back(new btRigidBody(ci));
    }
    for (auto *r : rigid) {
        r->setFriction(0.6f);
        world.addRigidBody(r);
    }
    std::vector<btSoftBody *> softs;
    for (auto &b : bodies) {
        btSoftBody *sb = btSoftBodyHelpers::CreateFromTriMesh(info, b.v.data(), b.t.data(), (int)b.t.size() / 3, false);
        sb->m_materials[0]->m_kLST = 0.5f;
        sb->m_materials[0]->m_kAST = 0.5f;
        sb->generateBendingConstraints(2, sb->m_materials[0]);
        sb->m_cfg.piterations = 8;
        sb->m_cfg.kDF = (btScalar)b.friction;
        sb->m_cfg.kVC = 20;
        sb->m_cfg.collisions = btSoftBody::fCollision::SDF_RS | btSoftBody::fCollision::VF_SS;
        sb->setTotalMass((btScalar)b.mass, false);
        sb->setPose(true, false);
        sb->getCollisionShape()->setMargin(0.02f);
        world.addSoftBody(sb);
        softs.push_back(sb);
    }
    size_t particles = 0, links = 0;
    for (auto *sb : softs) particles += sb->m_nodes.size(), links += sb->m_links.size();

    std::vector<double> ms;
    double total = 0;
    for (int s = 0; s < steps; ++s) {
        auto t0 = std::chrono::steady_clock::now();
        world.stepSimulation((btScalar)dt, 0);
        double m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ms.push_back(m);
        total += m;
    }
    std::sort(ms.begin(), ms.end());
    int inside = 0, outside = 0, nonfinite = 0;
    for (size_t i = 0; i < softs.size(); ++i)
        for (int n = 0; n < softs[i]->m_nodes.size(); ++n) {
            const btVector3 &q = softs[i]->m_nodes[n].m_x;
            if (!std::isfinite(q.x()) || !std::isfinite(q.y()) || !std::isfinite(q.z())) {
                ++nonfinite;
                continue;
            }
            if (std::fabs(q.x()) > 1.02 || std::fabs(q.z()) > 1.02 || q.y() < -0.02) ++outside;
            for (size_t j = 0; j < softs.size(); ++j)
                if (j != i && winding(bodies[j].t, softs[j], q) > 0.5) ++inside;
        }
    std::printf("soft_pile (Bullet %d btSoftBody): %zu bodies, %zu particles, %zu links, %d steps at 1/60 s\n"
                "  ms/step: median %.3f, mean %.3f\n"
                "  particles inside another body: %d; outside the box: %d; not finite: %d\n",
                btGetVersion(), softs.size(), particles, links, steps, ms[ms.size() / 2], total / steps, inside, outside,
                nonfinite);
    return 0;
}
