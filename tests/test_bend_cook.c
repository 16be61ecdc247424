/* test_bend_cook.c — bending's segmentation cooked into the asset (BNDT,
 * BNDN, BNDM; tools/cook_bend.c): the cooked owners and per-bone moments are
 * the ones cr_bend_attach computes, attaching with them (or with the owners
 * alone) gives the same sub-bodies bit for bit, the cook is reproducible, a
 * rigid asset keeps its bytes, and malformed sections are refused naming the
 * section and the element. */
#include "test_cook_util.h"
#include "geometry/asset_format.h"
#include "damage/sub_body.h"
#include "damage/bend_model.h"

#include <math.h>
#include <string.h>

static int cook(const char *mesh, const char *rig, uint32_t auto_bones, int res, bool bend, cr_cook_result *r) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    opt.rig_path = rig;
    opt.auto_bones = auto_bones;
    opt.bend = bend;
    char err[512];
    memset(r, 0, sizeof *r);
    if (cr_cook_file(mesh, NULL, &opt, r, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return 0;
    }
    return 1;
}

/* A world holding `a` with one body of it made bendable: each sub-body's mass,
 * centre and inertia tensor (their bits) and the record's node owners into out. */
typedef struct attach_out {
    cr_real mass[8];
    cr_vec3 centre[8], inertia[8], products[8];
    uint32_t bones, nodes;
    uint8_t *owners;
} attach_out;

static int attach(const cr_asset *a, attach_out *o) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.damage.bend = cr_default_bend_budget();
    def.damage.bend.body_capacity = 1;
    def.damage.surface_bytes = 8u << 20;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    uint32_t slot;
    cr_body_id body;
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_MESH;
    bd.material.density = CR_R(7800);
    cr_bend_def bend = cr_default_bend_def();
    int ok = block && cr_world_create(&def, block, size, &w) == CR_OK && cr_world_add_asset(w, a, &slot) == CR_OK &&
             (bd.shape.asset = slot, cr_body_create(w, &bd, &body) == CR_OK) && cr_bend_attach(w, body, &bend) == CR_OK;
    if (ok) {
        o->bones = cr_bend_get_bone_count(w, body);
        for (uint32_t k = 0; k < o->bones && k < 8; ++k) {
            cr_body_id s = cr_bend_get_sub_body(w, body, k);
            o->mass[k] = cr_body_get_mass(w, s);
            o->centre[k] = cr_body_get_transform(w, s).p;
            o->inertia[k] = cr_body_get_inertia(w, s);
            o->products[k] = cr_body_get_inertia_products(w, s);
        }
        o->nodes = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
        o->owners = malloc(o->nodes);
        memcpy(o->owners, cri_bend_node_bone(w, 0), o->nodes);
    }
    free(block);
    return ok;
}

static uint8_t *section_of(uint8_t *b, uint32_t id, uint32_t *count);
static void put32(uint8_t *p, uint32_t v);
static void reseal(uint8_t *b, size_t n);

CR_TEST(bend_cooked_segmentation_is_the_attach_segmentation) {
    static const struct { const char *mesh, *rig; uint32_t bones; int res; } cases[3] = {
        {"data/meshes/bar.obj", "data/rigs/bar.rig", 0, 32},
        {"data/meshes/pipe.obj", "data/rigs/pipe5.rig", 0, 64},
        {"data/meshes/teapot.obj", NULL, 3, 48},
    };
    for (int i = 0; i < 3; ++i) {
        cr_cook_result plain, cooked, again;
        ENSURE(cook(cases[i].mesh, cases[i].rig, cases[i].bones, cases[i].res, false, &plain));
        ENSURE(cook(cases[i].mesh, cases[i].rig, cases[i].bones, cases[i].res, true, &cooked));
        ENSURE(cook(cases[i].mesh, cases[i].rig, cases[i].bones, cases[i].res, true, &again));
        /* reproducible, and the plain cook's bytes are a prefix apart from the table: only the sections were added */
        ENSURE(cooked.size == again.size && memcmp(cooked.bytes, again.bytes, cooked.size) == 0);
        ENSURE(cooked.size > plain.size);
        cr_asset pa, ca;
        void *pb = tc_load(plain.bytes, plain.size, &pa), *cb = tc_load(cooked.bytes, cooked.size, &ca);
        ENSURE(pb != NULL && cb != NULL);
        ENSURE(pa.bend_triangle_bone == NULL && pa.bend_node_bone == NULL && pa.bend_moments == NULL);
        ENSURE(ca.bend_triangle_bone != NULL && ca.bend_node_bone != NULL && ca.bend_moments != NULL);
        /* the owners are what the runtime's segmentation gives the plain asset */
        uint32_t nodes = pa.sdf_dims[0] * pa.sdf_dims[1] * pa.sdf_dims[2];
        uint8_t *tri = malloc(pa.triangle_count), *node = malloc(nodes);
        uint32_t *queue = malloc(nodes * sizeof(uint32_t));
        cri_sub_body_segment(&pa, pa.skin_bone, pa.skin_weight, tri, node, queue);
        ENSURE(memcmp(tri, ca.bend_triangle_bone, pa.triangle_count) == 0);
        ENSURE(memcmp(node, ca.bend_node_bone, nodes) == 0);
        /* the moments are each bone's inside nodes, summed as attach sums them */
        cr_asset_bone_moments m[8];
        ENSURE(pa.bone_count <= 8);
        cri_sub_body_moments(&pa, node, pa.bone_count, NULL, m);
        ENSURE(memcmp(m, ca.bend_moments, pa.bone_count * sizeof m[0]) == 0);
        int64_t counted = 0, inside = 0;
        for (uint32_t k = 0; k < pa.bone_count; ++k) counted += m[k].count;
        for (uint32_t n = 0; n < nodes; ++n) inside += pa.sdf[n] < 0;
        ENSURE(counted == inside);
        /* the owners without the moments (a file cooked before BNDM): the table's last entry dropped */
        uint8_t *old = malloc(cooked.size);
        memcpy(old, cooked.bytes, cooked.size);
        uint32_t entries = (uint32_t)old[CR_AH_SECTION_COUNT] | (uint32_t)old[CR_AH_SECTION_COUNT + 1] << 8;
        ENSURE(entries == CR_ASEC_BNDM + 1);
        put32(old + CR_AH_SECTION_COUNT, entries - 1);
        reseal(old, cooked.size);
        cr_asset oa;
        void *ob = tc_load(old, cooked.size, &oa);
        ENSURE(ob != NULL && oa.bend_node_bone != NULL && oa.bend_moments == NULL);
        /* attaching any of the three gives the same sub-bodies, bit for bit */
        attach_out ap, ac, ao;
        memset(&ap, 0, sizeof ap), memset(&ac, 0, sizeof ac), memset(&ao, 0, sizeof ao);
        ENSURE(attach(&pa, &ap) && attach(&ca, &ac) && attach(&oa, &ao));
        ENSURE(ap.bones == ac.bones && ap.bones == ao.bones && ap.bones >= 2);
        ENSURE(memcmp(ap.owners, ac.owners, ap.nodes) == 0 && memcmp(ap.owners, ao.owners, ap.nodes) == 0);
        for (uint32_t k = 0; k < ap.bones && k < 8; ++k) {
            ENSURE(memcmp(&ap.mass[k], &ac.mass[k], sizeof(cr_real)) == 0);
            ENSURE(memcmp(&ap.centre[k], &ac.centre[k], sizeof(cr_vec3)) == 0);
            ENSURE(memcmp(&ap.inertia[k], &ac.inertia[k], sizeof(cr_vec3)) == 0);
            ENSURE(memcmp(&ap.mass[k], &ao.mass[k], sizeof(cr_real)) == 0);
            ENSURE(memcmp(&ap.centre[k], &ao.centre[k], sizeof(cr_vec3)) == 0);
            ENSURE(memcmp(&ap.inertia[k], &ao.inertia[k], sizeof(cr_vec3)) == 0);
            ENSURE(memcmp(&ap.products[k], &ac.products[k], sizeof(cr_vec3)) == 0);
            ENSURE(memcmp(&ap.products[k], &ao.products[k], sizeof(cr_vec3)) == 0);
        }
        /* the sub-bodies keep their products of inertia (a bone is seldom along
         * the parent's axes): each tensor entry against the smallest moment, as
         * the bone's nodes give it and as its body holds it */
        double worst = 0, off = 0;
        for (uint32_t k = 0; k < pa.bone_count && k < 8; ++k) {
            cr_vec3 c, in, pr;
            cri_sub_body_mass(&pa, &m[k], CR_R(1), &c, &in, &pr);
            double lo = cr_to_double(cr_min(in.x, cr_min(in.y, in.z)));
            double blo = cr_to_double(cr_min(ap.inertia[k].x, cr_min(ap.inertia[k].y, ap.inertia[k].z)));
            double nodes_r[3] = {cr_to_double(pr.x) / lo, cr_to_double(pr.y) / lo, cr_to_double(pr.z) / lo};
            double body_r[3] = {cr_to_double(ap.products[k].x) / blo, cr_to_double(ap.products[k].y) / blo,
                                cr_to_double(ap.products[k].z) / blo};
            for (int x = 0; x < 3; ++x) {
                if (fabs(nodes_r[x]) > worst) worst = fabs(nodes_r[x]);
                if (fabs(nodes_r[x] - body_r[x]) > off) off = fabs(nodes_r[x] - body_r[x]);
            }
        }
        cr_test_printf("    %s: products of inertia up to %.3f of a bone's smallest moment, kept by its body to %.1g\n",
                       cases[i].mesh, worst, off);
        ENSURE(off < 1e-4);
        free(ao.owners), free(ob), free(old);
        cr_test_printf("    %s: %u bones, %u triangles and %u nodes cooked (%zu bytes more), the same as attach's\n",
                       cases[i].mesh, ap.bones, pa.triangle_count, nodes, cooked.size - plain.size);
        free(ap.owners), free(ac.owners), free(tri), free(node), free(queue), free(pb), free(cb);
        cr_cook_result_free(&plain), cr_cook_result_free(&cooked), cr_cook_result_free(&again);
    }
    /* a rigid mesh has no skeleton to segment by */
    cr_cook_result r;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.bend = true;
    char err[256];
    memset(&r, 0, sizeof r);
    ENSURE(cr_cook_file("data/meshes/bar.obj", NULL, &opt, &r, err, sizeof err) != 0 && r.bytes == NULL);
    ENSURE(strstr(err, "--bend") != NULL);
}

static uint8_t *section_of(uint8_t *b, uint32_t id, uint32_t *count) {
    uint8_t *en = b + CR_ASSET_HEADER_SIZE + id * CR_ASSET_ENTRY_SIZE;
    uint32_t off = (uint32_t)en[4] | (uint32_t)en[5] << 8 | (uint32_t)en[6] << 16 | (uint32_t)en[7] << 24;
    *count = (uint32_t)en[12] | (uint32_t)en[13] << 8 | (uint32_t)en[14] << 16 | (uint32_t)en[15] << 24;
    return b + off;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static void reseal(uint8_t *b, size_t n) {
    uint64_t h = cr_asset_checksum(b + 16, n - 16);
    for (int i = 0; i < 8; ++i) b[8 + i] = (uint8_t)(h >> (8 * i));
}

static void put64(uint8_t *p, int64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

static int64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
    return (int64_t)v;
}

static cr_asset_error load_err(uint8_t *b, size_t n) {
    reseal(b, n); /* the checks after the checksum are the point */
    cr_asset a;
    cr_asset_error e;
    memset(&e, 0, sizeof e);
    /* memory_size refuses a bad asset with 0; the load names why */
    size_t need = (cr_asset_memory_size(b, n) + 15) / 16 * 16 + 16;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, need);
    if (cr_asset_load(b, n, block, need, &a, &e) == CR_OK) e.check = CR_ASSET_OK;
    free(block);
    return e;
}

CR_TEST(bend_cooked_segmentation_malformed_is_refused) {
    cr_cook_result r;
    ENSURE(cook("data/meshes/bar.obj", "data/rigs/bar.rig", 0, 32, true, &r));
    uint8_t *c = malloc(r.size);
    uint32_t count;
    /* an owner that is not a bone, in each section */
    const uint32_t ids[2] = {CR_ASEC_BNDT, CR_ASEC_BNDN};
    const char *tags[2] = {"BNDT", "BNDN"};
    for (int s = 0; s < 2; ++s) {
        memcpy(c, r.bytes, r.size);
        uint8_t *sec = section_of(c, ids[s], &count);
        ENSURE(count > 7);
        sec[7] = 3; /* the bar has 3 bones */
        cr_asset_error e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_INDEX_RANGE && memcmp(e.section_tag, tags[s], 4) == 0 && e.index == 7,
                   "%s: %s '%s' %u", tags[s], cr_asset_check_name(e.check), e.section_tag, e.index);
        sec[7] = 0xff;
        e = load_err(c, r.size);
        ENSURE(e.check == CR_ASSET_INDEX_RANGE && e.index == 7);
    }
    /* a count that is not one per triangle / node, or one section without the other */
    for (int s = 0; s < 2; ++s) {
        memcpy(c, r.bytes, r.size);
        uint8_t *en = c + CR_ASSET_HEADER_SIZE + ids[s] * CR_ASSET_ENTRY_SIZE;
        section_of(c, ids[s], &count);
        put32(en + 12, count - 1), put32(en + 8, count - 1);
        cr_asset_error e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_SECTION_SIZE && memcmp(e.section_tag, tags[s], 4) == 0, "%s: %s '%s'", tags[s],
                   cr_asset_check_name(e.check), e.section_tag);
        put32(en + 12, 0), put32(en + 8, 0);
        e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_SECTION_SIZE && memcmp(e.section_tag, tags[s], 4) == 0, "%s gone: %s '%s'",
                   tags[s], cr_asset_check_name(e.check), e.section_tag);
    }
    /* moments no bone's inside nodes can have (BNDM: 10 i64 per bone, count first) */
    struct { int field; int64_t value; const char *what; } bad[] = {
        {0, -1, "negative count"},
        {0, 1 << 20, "more nodes than the grid"},
        {1, -1, "negative sum"},
        {2, 1 << 30, "sum past the grid"},
        {4, 0, "squares below the spread"},
        {5, -5, "negative squares"},
        {8, 1ll << 40, "products past the grid"},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; ++t) {
        memcpy(c, r.bytes, r.size);
        uint8_t *sec = section_of(c, CR_ASEC_BNDM, &count);
        ENSURE(count == 3);
        ENSURE(get64(sec + 80 + 8) > get64(sec + 80)); /* bone 1's mean x index is past 1: its squares can be too small */
        put64(sec + 80 + 8 * bad[t].field, bad[t].value);
        cr_asset_error e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_VALUE_RANGE && memcmp(e.section_tag, "BNDM", 4) == 0 && e.index == 1,
                   "%s: %s '%s' %u", bad[t].what, cr_asset_check_name(e.check), e.section_tag, e.index);
    }
    {
        /* all three bones claiming every node: the counts add up past the grid, refused at the bone that tips it */
        memcpy(c, r.bytes, r.size);
        uint8_t *sec = section_of(c, CR_ASEC_BNDM, &count);
        section_of(c, CR_ASEC_BNDN, &count);
        int64_t nodes = count;
        for (int b = 0; b < 3; ++b) put64(sec + 80 * b, nodes / 2);
        cr_asset_error e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_VALUE_RANGE && memcmp(e.section_tag, "BNDM", 4) == 0 && e.index == 2,
                   "counts: %s '%s' %u", cr_asset_check_name(e.check), e.section_tag, e.index);
    }
    {
        /* one per bone or none; none without the owners */
        memcpy(c, r.bytes, r.size);
        uint8_t *en = c + CR_ASSET_HEADER_SIZE + CR_ASEC_BNDM * CR_ASSET_ENTRY_SIZE;
        put32(en + 12, 2), put32(en + 8, 160);
        cr_asset_error e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_SECTION_SIZE && memcmp(e.section_tag, "BNDM", 4) == 0, "BNDM count: %s '%s'",
                   cr_asset_check_name(e.check), e.section_tag);
        memcpy(c, r.bytes, r.size);
        for (uint32_t id = CR_ASEC_BNDT; id <= CR_ASEC_BNDN; ++id) {
            en = c + CR_ASSET_HEADER_SIZE + id * CR_ASSET_ENTRY_SIZE;
            put32(en + 12, 0), put32(en + 8, 0);
        }
        e = load_err(c, r.size);
        ENSURE_MSG(e.check == CR_ASSET_SECTION_SIZE && memcmp(e.section_tag, "BNDM", 4) == 0, "BNDM alone: %s '%s'",
                   cr_asset_check_name(e.check), e.section_tag);
    }
    free(c);
    cr_cook_result_free(&r);
}
