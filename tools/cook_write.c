/* cook_write.c — serialise a cooked asset (layout: tools/asset_format.h,
 * prose: docs/asset-format.md).
 *
 * Every byte is written explicitly, little-endian, with zero padding between
 * sections, so the output depends on nothing but the values: no struct
 * padding, no uninitialised memory, no host byte order. Floats are rounded
 * from the cooker's doubles once, here.
 */
#include "cook.h"
#include "cook_squash.h"
#include "cook_soft.h"
#include "asset_format.h"
#include "crumple/asset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct out_buf {
    uint8_t *b;
    size_t n, cap;
    int oom;
} out_buf;

static void ensure(out_buf *o, size_t extra) {
    if (o->oom || o->n + extra <= o->cap) return;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->n + extra) cap *= 2;
    uint8_t *nb = realloc(o->b, cap);
    if (nb == NULL) {
        o->oom = 1;
        return;
    }
    memset(nb + o->cap, 0, cap - o->cap);
    o->b = nb;
    o->cap = cap;
}

static void put_u32_at(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void put_u32(out_buf *o, uint32_t v) {
    ensure(o, 4);
    if (o->oom) return;
    put_u32_at(o->b + o->n, v);
    o->n += 4;
}

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* -0 is stored as +0: the two compare equal, and one spelling keeps the
 * bytes (and so the checksum) independent of how a zero was reached */
static void put_f32f(out_buf *o, float v) { put_u32(o, v == 0 ? 0u : f32_bits(v)); }
static void put_f32(out_buf *o, double v) { put_f32f(o, (float)v); }

static void pad_to(out_buf *o, size_t align) {
    while (o->n % align) {
        ensure(o, 1);
        if (o->oom) return;
        o->b[o->n++] = 0;
    }
}

typedef struct sec_rec {
    uint32_t offset, size, count;
} sec_rec;

int cr_cook_write(const cr_cook_asset *a, uint8_t **bytes, size_t *size, size_t section_bytes[32], char *err, size_t err_size) {
    const cr_cook_mesh *m = a->mesh;
    const cr_cook_surface *s = a->surface;
    const cr_cook_grid *g = a->grid;
    const cr_cook_skin *k = a->skin;
    uint32_t nv = m->vertex_count, nb = k->bone_count, ne = k->example_count;
    _Static_assert(CR_ASSET_SECTION_COUNT <= 32, "section_bytes has room for 32 sections");
    out_buf o = {0};
    sec_rec sec[CR_ASSET_SECTION_COUNT];
    memset(sec, 0, sizeof sec);
    /* the optional sections at the end are written only up to the last one that is not empty
     * (asset_format.h): an asset without them keeps the bytes of the format before them */
    uint32_t entries = CR_ASSET_REQUIRED_SECTIONS;
    if (a->squash && a->squash->count > 0) entries = CR_ASEC_SQIV + 1;
    if (a->fracture && a->fracture->piece_count > 0) entries = CR_ASEC_FRCA + 1;
    if (a->soft && a->soft->spring_count > 0) entries = CR_ASEC_SPRS + 1;
    if (s->geo_patch_count > 0) entries = CR_ASEC_GPAT + 1;
    if (a->bend_triangle_bone && a->bend_node_bone && nb > 0) entries = a->bend_moments ? CR_ASEC_BNDM + 1 : CR_ASEC_BNDN + 1;
    ensure(&o, CR_ASSET_HEADER_SIZE + entries * CR_ASSET_ENTRY_SIZE);
    o.n = CR_ASSET_HEADER_SIZE + entries * CR_ASSET_ENTRY_SIZE;

    /* positions as float32 once; samples must be bit-identical copies of them */
    float *pf = malloc(sizeof(float) * 3 * (size_t)nv);
    for (size_t i = 0; i < 3 * (size_t)nv; ++i) pf[i] = (float)m->pos[i];

    if (section_bytes) memset(section_bytes, 0, 32 * sizeof(size_t));
    for (int id = 0; id < (int)entries; ++id) {
        pad_to(&o, CR_ASSET_ALIGN);
        size_t start = o.n;
        uint32_t count = 0;
        switch ((cr_asset_section_id)id) {
        case CR_ASEC_INFO: {
            count = 1;
            uint32_t u[16] = {nv, m->triangle_count, s->sample_count, g->dims[0], g->dims[1], g->dims[2], s->adj_count,
                              s->geo_count, nb, nb ? ne : 0, m->boundary_edges, m->nonmanifold_edges, m->components,
                              m->welded_vertices, m->dropped_triangles, 0};
            for (int i = 0; i < 16; ++i) put_u32(&o, u[i]);
            for (int i = 0; i < 3; ++i) put_f32(&o, g->origin[i]);
            put_f32(&o, g->cell);
            put_f32(&o, a->mass->volume);
            for (int i = 0; i < 3; ++i) put_f32(&o, a->mass->inertia[i]);
            for (int i = 0; i < 3; ++i) put_f32(&o, a->frame->p[i]);
            for (int i = 0; i < 4; ++i) put_f32(&o, a->frame->q[i]);
            put_f32(&o, s->area);
            for (int i = 0; i < 3; ++i) put_f32(&o, a->bounds_min[i]);
            for (int i = 0; i < 3; ++i) put_f32(&o, a->bounds_max[i]);
            put_f32f(&o, nextafterf((float)a->bound_radius, INFINITY));
            put_f32f(&o, (float)s->geo_radius);
            put_u32(&o, s->geo_patch_count);
            put_f32f(&o, s->geo_patch_count ? nextafterf((float)s->geo_patch_radius, INFINITY) : 0.0f);
            while (o.n - start < CR_AI_SIZE) put_u32(&o, 0);
            break;
        }
        case CR_ASEC_VPOS:
            count = nv;
            for (size_t i = 0; i < 3 * (size_t)nv; ++i) put_f32f(&o, pf[i]);
            break;
        case CR_ASEC_VNRM:
            count = nv;
            for (size_t i = 0; i < 3 * (size_t)nv; ++i) put_f32f(&o, s->normals[i]);
            break;
        case CR_ASEC_TRIS:
            count = m->triangle_count;
            for (size_t i = 0; i < 3 * (size_t)m->triangle_count; ++i) put_u32(&o, m->tri[i]);
            break;
        case CR_ASEC_SMPV:
            count = s->sample_count;
            for (uint32_t i = 0; i < s->sample_count; ++i) put_u32(&o, s->sample_vertex[i]);
            break;
        case CR_ASEC_SMPP:
            count = s->sample_count;
            for (uint32_t i = 0; i < s->sample_count; ++i)
                for (int c = 0; c < 3; ++c) put_f32f(&o, pf[3 * (size_t)s->sample_vertex[i] + c]);
            break;
        case CR_ASEC_SDFV:
            count = g->dims[0] * g->dims[1] * g->dims[2];
            for (uint32_t i = 0; i < count; ++i) put_f32f(&o, g->values[i]);
            break;
        case CR_ASEC_ADJS: /* empty when left out (cr_cook_options.leave_out) */
            count = s->adj_start ? nv + 1 : 0;
            for (uint32_t i = 0; i < count; ++i) put_u32(&o, s->adj_start[i]);
            break;
        case CR_ASEC_ADJI:
            count = s->adj_count;
            for (uint32_t i = 0; i < count; ++i) put_u32(&o, s->adj[i]);
            break;
        case CR_ASEC_GEOS:
            count = s->geo_start ? (s->geo_patch_count ? s->geo_patch_count : nv) + 1 : 0;
            for (uint32_t i = 0; i < count; ++i) put_u32(&o, s->geo_start[i]);
            break;
        case CR_ASEC_GEOI:
            count = s->geo_count;
            for (uint32_t i = 0; i < count; ++i) put_u32(&o, s->geo[i]);
            break;
        case CR_ASEC_GEOD:
            count = s->geo_count;
            for (uint32_t i = 0; i < count; ++i) put_f32f(&o, s->geo_dist[i]);
            break;
        case CR_ASEC_BONE:
            count = nb;
            for (uint32_t b = 0; b < nb; ++b) {
                put_u32(&o, (uint32_t)k->parent[b]);
                for (int c = 0; c < 7; ++c) put_f32(&o, k->rest[7 * b + c]);
            }
            break;
        case CR_ASEC_SKNI:
            count = nb ? nv : 0;
            ensure(&o, (size_t)count * 4);
            if (!o.oom && count) {
                memcpy(o.b + o.n, k->skin_bone, (size_t)count * 4);
                o.n += (size_t)count * 4;
            }
            break;
        case CR_ASEC_SKNW:
            count = nb ? nv : 0;
            for (size_t i = 0; i < 4 * (size_t)count; ++i) put_f32f(&o, k->skin_weight[i]);
            break;
        case CR_ASEC_EXMP:
            count = nb ? ne * nb : 0;
            for (size_t i = 0; i < 7 * (size_t)count; ++i) put_f32(&o, k->examples[i]);
            break;
        case CR_ASEC_SQSK:
            count = a->squash ? a->squash->count : 0;
            for (uint32_t i = 0; i < count; ++i) {
                const cr_cook_primitive *q = &a->squash->prims[i];
                /* the kind, its group (bits 8..15) and its group's collide mask (16..31): 0 without groups */
                put_u32(&o, (uint32_t)q->type | (uint32_t)q->group << 8 | (uint32_t)a->squash->collide[q->group] << 16);
                for (int c = 0; c < 3; ++c) put_f32(&o, q->a[c]);
                for (int c = 0; c < 3; ++c) put_f32(&o, q->b[c]);
                for (int c = 0; c < 3; ++c) put_f32(&o, q->e[c]);
                put_f32(&o, q->radius);
                put_f32(&o, q->weight);
            }
            break;
        case CR_ASEC_SQIV:
            count = a->squash && a->squash->count ? 1 : 0;
            if (count) put_f32(&o, a->squash->isovalue);
            break;
        case CR_ASEC_FRCP:
            /* offsets are patched once FRCA is written (it comes later) */
            count = a->fracture ? a->fracture->piece_count : 0;
            for (uint32_t i = 0; i < count; ++i) {
                put_u32(&o, 0);
                put_u32(&o, (uint32_t)a->fracture->piece_size[i]);
                put_f32(&o, a->fracture->piece_volume[i]);
                for (int c = 0; c < 3; ++c) put_f32(&o, a->fracture->piece_centroid[3 * i + c]);
            }
            break;
        case CR_ASEC_FRCB:
            count = a->fracture ? a->fracture->bond_count : 0;
            for (uint32_t i = 0; i < count; ++i) {
                put_u32(&o, a->fracture->bond_pair[2 * i]);
                put_u32(&o, a->fracture->bond_pair[2 * i + 1]);
                put_f32(&o, a->fracture->bond_area[i]);
                for (int c = 0; c < 3; ++c) put_f32(&o, a->fracture->bond_centroid[3 * i + c]);
                for (int c = 0; c < 3; ++c) put_f32(&o, a->fracture->bond_normal[3 * i + c]);
            }
            break;
        case CR_ASEC_FRCA:
            for (uint32_t i = 0; a->fracture && i < a->fracture->piece_count; ++i) {
                pad_to(&o, CR_ASSET_ALIGN);
                size_t at = o.n;
                ensure(&o, a->fracture->piece_size[i]);
                if (!o.oom) memcpy(o.b + o.n, a->fracture->piece_bytes[i], a->fracture->piece_size[i]);
                o.n += a->fracture->piece_size[i];
                if (!o.oom) put_u32_at(o.b + sec[CR_ASEC_FRCP].offset + 24 * (size_t)i, (uint32_t)at);
            }
            pad_to(&o, CR_ASSET_ALIGN);
            count = (uint32_t)((o.n - start) / 16);
            break;
        case CR_ASEC_SPRP:
            count = a->soft ? a->soft->vertex_count : 0;
            for (uint32_t i = 0; i < count; ++i) put_f32f(&o, a->soft->weight[i]);
            break;
        case CR_ASEC_SPRS:
            count = a->soft ? a->soft->spring_count : 0;
            for (uint32_t i = 0; i < count; ++i) {
                for (int c = 0; c < 3; ++c) put_u32(&o, a->soft->spring[3 * (size_t)i + c]);
                put_f32(&o, a->soft->rest[i]);
            }
            break;
        case CR_ASEC_GPAT:
            count = s->geo_patch_count ? nv : 0;
            for (uint32_t i = 0; i < count; ++i) put_u32(&o, s->geo_patch[i]);
            break;
        case CR_ASEC_BNDT:
        case CR_ASEC_BNDN: {
            const uint8_t *src = id == CR_ASEC_BNDT ? a->bend_triangle_bone : a->bend_node_bone;
            count = src && nb ? (id == CR_ASEC_BNDT ? m->triangle_count : g->dims[0] * g->dims[1] * g->dims[2]) : 0;
            ensure(&o, count);
            if (!o.oom && count) memcpy(o.b + o.n, src, count), o.n += count;
            break;
        }
        case CR_ASEC_BNDM:
            count = a->bend_triangle_bone && a->bend_node_bone && a->bend_moments && nb ? nb : 0;
            for (uint32_t i = 0; i < 10 * count; ++i) {
                uint64_t v = (uint64_t)a->bend_moments[i];
                put_u32(&o, (uint32_t)v), put_u32(&o, (uint32_t)(v >> 32));
            }
            break;
        default:
            break;
        }
        if (o.n - start > 0xffffffffu || o.n > CR_ASSET_MAX_FILE_SIZE) {
            free(pf);
            free(o.b);
            snprintf(err, err_size, "cooked asset would exceed the format's 2 GiB limit; lower --sdf-res or --geodesic-max");
            return -1;
        }
        sec[id].offset = (uint32_t)start;
        sec[id].size = (uint32_t)(o.n - start);
        sec[id].count = count;
        if (section_bytes) section_bytes[id] = o.n - start;
    }
    free(pf);
    pad_to(&o, CR_ASSET_ALIGN);
    if (o.oom) {
        free(o.b);
        snprintf(err, err_size, "out of memory while writing the asset");
        return -1;
    }
    uint8_t *b = o.b;
    memset(b, 0, CR_ASSET_HEADER_SIZE);
    memcpy(b + CR_AH_MAGIC, CR_ASSET_MAGIC, 8);
    put_u32_at(b + CR_AH_VERSION, CR_ASSET_VERSION);
    put_u32_at(b + CR_AH_HEADER_SIZE, CR_ASSET_HEADER_SIZE);
    put_u32_at(b + CR_AH_FILE_SIZE, (uint32_t)o.n);
    put_u32_at(b + CR_AH_SECTION_COUNT, entries);
    put_u32_at(b + CR_AH_TABLE_OFFSET, CR_ASSET_HEADER_SIZE);
    put_u32_at(b + CR_AH_FLAGS, (m->boundary_edges == 0 && m->nonmanifold_edges == 0) ? CR_ASSET_FLAG_CLOSED : 0);
    put_u32_at(b + CR_AH_ENDIAN, CR_ASSET_ENDIAN_MARK);
    for (int id = 0; id < (int)entries; ++id) {
        uint8_t *e = b + CR_ASSET_HEADER_SIZE + (size_t)id * CR_ASSET_ENTRY_SIZE;
        uint32_t tag = 0;
        switch ((cr_asset_section_id)id) {
#define CR_X_TAG_(sid, c0, c1, c2, c3, sz) \
    case CR_ASEC_##sid:                    \
        tag = CR_ASSET_TAG(c0, c1, c2, c3); \
        break;
            CR_ASSET_SECTION_LIST(CR_X_TAG_)
#undef CR_X_TAG_
        default:
            break;
        }
        put_u32_at(e, tag);
        put_u32_at(e + 4, sec[id].offset);
        put_u32_at(e + 8, sec[id].size);
        put_u32_at(e + 12, sec[id].count);
    }
    uint64_t sum = cr_asset_checksum(b + 16, o.n - 16);
    for (int i = 0; i < 8; ++i) b[CR_AH_CHECKSUM + i] = (uint8_t)(sum >> (8 * i));
    *bytes = b;
    *size = o.n;
    return 0;
}
