/* surface_copy.c — a body's own surface and grid, refreshed and patched after
 * a damage model moved it (see surface_copy.h). */
#include "geometry/surface_copy.h"
#include "base/hash.h"

#include <stdint.h>
#include <string.h>

static uint32_t al16(uint64_t x) { return (uint32_t)((x + 15u) & ~(uint64_t)15u); }
static uint32_t sdf_nodes(const cr_asset *a) { return a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2]; }

/* Offsets of the pieces inside a region starting at `base`; returns the size. */
static uint32_t region_layout(const cr_asset *a, cr_surface_copy *c, uint32_t base) {
    uint32_t off = base;
    c->view = off, off += al16(sizeof(cr_asset));
    c->positions = off, off += al16((uint64_t)a->vertex_count * sizeof(cr_vec3));
    c->normals = off, off += al16((uint64_t)a->vertex_count * sizeof(cr_vec3));
    c->samples = off, off += al16((uint64_t)a->sample_count * sizeof(cr_vec3));
    c->sdf = off, off += al16((uint64_t)sdf_nodes(a) * sizeof(cr_real));
    return off - base;
}

uint32_t cri_surface_copy_bytes(const cr_asset *rest) {
    cr_surface_copy probe;
    return region_layout(rest, &probe, 0);
}

void cri_surface_copy_bind(cr_surface_copy *c, uint8_t *block, const cr_asset *rest) {
    cr_asset *view = (cr_asset *)(block + c->view);
    if (rest == NULL) return;
    /* keep the copied bounds; everything that does not move is the cooked asset's */
    cr_vec3 lo = view->bounds_min, hi = view->bounds_max;
    cr_real radius = view->bound_radius;
    *view = *rest;
    view->bounds_min = lo, view->bounds_max = hi, view->bound_radius = radius;
    view->positions = (const cr_vec3 *)(block + c->positions);
    view->normals = (const cr_vec3 *)(block + c->normals);
    view->samples = rest->samples ? (const cr_vec3 *)(block + c->samples) : NULL;
    view->sdf = (const cr_real *)(block + c->sdf);
    view->sdf_origin = cr_v3_sub(rest->sdf_origin, c->frame_shift);
    view->mesh_to_body.p = cr_v3_sub(rest->mesh_to_body.p, c->frame_shift);
}

uint32_t cri_surface_copy_shift(cr_surface_copy *c, uint8_t *block, const cr_asset *rest, cr_vec3 by) {
    cr_asset *view = (cr_asset *)(block + c->view);
    cr_vec3 *pos = (cr_vec3 *)(block + c->positions);
    for (uint32_t v = 0; v < view->vertex_count; ++v) pos[v] = cr_v3_sub(pos[v], by);
    if (view->samples != NULL) {
        cr_vec3 *s = (cr_vec3 *)(block + c->samples);
        for (uint32_t i = 0; i < view->sample_count; ++i) s[i] = cr_v3_sub(s[i], by);
    }
    view->bounds_min = cr_v3_sub(view->bounds_min, by), view->bounds_max = cr_v3_sub(view->bounds_max, by);
    c->frame_shift = cr_v3_add(c->frame_shift, by);
    /* from the cooked values, as cri_surface_copy_bind does: a restored copy gets the same bits */
    view->sdf_origin = cr_v3_sub(rest->sdf_origin, c->frame_shift);
    view->mesh_to_body.p = cr_v3_sub(rest->mesh_to_body.p, c->frame_shift);
    return view->vertex_count + view->sample_count;
}

void cri_surface_copy_init(cr_surface_copy *c, uint8_t *block, uint32_t region, const cr_asset *rest) {
    region_layout(rest, c, region);
    cri_ranges_clear(&c->dirty);
    c->changes = 0;
    c->patch_digest = 0;
    c->frame_shift = cr_v3_zero();
    memcpy(block + c->positions, rest->positions, (size_t)rest->vertex_count * sizeof(cr_vec3));
    memcpy(block + c->normals, rest->normals, (size_t)rest->vertex_count * sizeof(cr_vec3));
    if (rest->samples) memcpy(block + c->samples, rest->samples, (size_t)rest->sample_count * sizeof(cr_vec3));
    memcpy(block + c->sdf, rest->sdf, (size_t)sdf_nodes(rest) * sizeof(cr_real));
    cr_asset *view = (cr_asset *)(block + c->view);
    view->bounds_min = rest->bounds_min, view->bounds_max = rest->bounds_max, view->bound_radius = rest->bound_radius;
    cri_surface_copy_bind(c, block, rest);
}

void cri_surface_copy_mark(cr_surface_copy *c, uint32_t first, uint32_t last) { cri_ranges_add(&c->dirty, first, last); }

void cri_surface_copy_mark_ranges(cr_surface_copy *c, const cr_vertex_ranges *moved) { cri_ranges_add_all(&c->dirty, moved); }

void cri_surface_copy_mark_bits(cr_surface_copy *c, const uint32_t *bits, uint32_t first, uint32_t last) {
    for (uint32_t v = first; v <= last && v >= first; ++v) {
        if ((v & 31u) == 0 && bits[v >> 5] == 0) { /* a word of unmoved vertices */
            v += 31;
            continue;
        }
        if (bits[v >> 5] >> (v & 31u) & 1u) cri_ranges_add(&c->dirty, v, v);
    }
}

/* A triangle's area-weighted normal, as every vertex normal sums it. */
static cr_vec3 face_normal(const cr_vec3 *pos, const uint32_t *tri) {
    return cr_v3_cross(cr_v3_sub(pos[tri[1]], pos[tri[0]]), cr_v3_sub(pos[tri[2]], pos[tri[0]]));
}

static bool bit_of(const uint32_t *bits, uint32_t v) { return (bits[v >> 5] >> (v & 31u) & 1u) != 0; }

/* Bounds and samples after the normals; returns the work. */
static uint32_t refresh_bounds_and_samples(cr_surface_copy *c, cr_asset *view, uint8_t *block, cr_real *bound_radius) {
    const cr_vec3 *pos = (const cr_vec3 *)(block + c->positions);
    cr_vec3 lo = pos[0], hi = pos[0];
    cr_real r2 = 0;
    for (uint32_t v = 0; v < view->vertex_count; ++v) {
        lo = cr_v3_min(lo, pos[v]), hi = cr_v3_max(hi, pos[v]);
        r2 = cr_max(r2, cr_v3_len_sq(pos[v]));
    }
    if (view->samples != NULL) {
        cr_vec3 *s = (cr_vec3 *)(block + c->samples);
        for (uint32_t i = 0; i < view->sample_count; ++i) s[i] = pos[view->sample_vertex[i]];
    }
    view->bounds_min = lo, view->bounds_max = hi;
    view->bound_radius = cr_sqrt(r2);
    *bound_radius = view->bound_radius;
    c->changes++;
    return view->vertex_count + view->sample_count;
}

uint32_t cri_surface_copy_refresh(cr_surface_copy *c, uint8_t *block, cr_real *bound_radius) {
    cr_asset *view = (cr_asset *)(block + c->view);
    const cr_vec3 *pos = (const cr_vec3 *)(block + c->positions);
    cr_vec3 *nrm = (cr_vec3 *)(block + c->normals);
    for (uint32_t v = 0; v < view->vertex_count; ++v) nrm[v] = cr_v3_zero();
    for (uint32_t t = 0; t < view->triangle_count; ++t) {
        const uint32_t *tri = &view->triangles[3 * t];
        cr_vec3 n = face_normal(pos, tri);
        for (int k = 0; k < 3; ++k) nrm[tri[k]] = cr_v3_add(nrm[tri[k]], n);
    }
    for (uint32_t v = 0; v < view->vertex_count; ++v) nrm[v] = cr_v3_normalize(nrm[v]);
    return view->triangle_count + view->vertex_count + refresh_bounds_and_samples(c, view, block, bound_radius);
}

/* Only the normals a move can change: those of the vertices that share a
 * triangle with a moved one ("touched"). Each touched normal is summed again
 * from zero over all its triangles in triangle order, as the full refresh
 * sums it, so the bits are the same; the others keep theirs, since none of
 * their triangles moved. */
uint32_t cri_surface_copy_refresh_moved(cr_surface_copy *c, uint8_t *block, const uint32_t *moved, uint32_t *touched,
                                        cr_real *bound_radius) {
    cr_asset *view = (cr_asset *)(block + c->view);
    const cr_vec3 *pos = (const cr_vec3 *)(block + c->positions);
    cr_vec3 *nrm = (cr_vec3 *)(block + c->normals);
    const uint32_t words = (view->vertex_count + 31u) / 32u;
    memset(touched, 0, (size_t)words * sizeof(uint32_t));
    for (uint32_t t = 0; t < view->triangle_count; ++t) {
        const uint32_t *tri = &view->triangles[3 * t];
        if (!bit_of(moved, tri[0]) && !bit_of(moved, tri[1]) && !bit_of(moved, tri[2])) continue;
        for (int k = 0; k < 3; ++k) touched[tri[k] >> 5] |= 1u << (tri[k] & 31u);
    }
    uint32_t faces = 0, count = 0;
    for (uint32_t v = 0; v < view->vertex_count; ++v)
        if (bit_of(touched, v)) nrm[v] = cr_v3_zero(), ++count;
    for (uint32_t t = 0; t < view->triangle_count; ++t) {
        const uint32_t *tri = &view->triangles[3 * t];
        const bool t0 = bit_of(touched, tri[0]), t1 = bit_of(touched, tri[1]), t2 = bit_of(touched, tri[2]);
        if (!t0 && !t1 && !t2) continue;
        cr_vec3 n = face_normal(pos, tri);
        if (t0) nrm[tri[0]] = cr_v3_add(nrm[tri[0]], n);
        if (t1) nrm[tri[1]] = cr_v3_add(nrm[tri[1]], n);
        if (t2) nrm[tri[2]] = cr_v3_add(nrm[tri[2]], n);
        ++faces;
    }
    for (uint32_t v = 0; v < view->vertex_count; ++v)
        if (bit_of(touched, v)) nrm[v] = cr_v3_normalize(nrm[v]);
    return 2 * view->triangle_count + faces + count + refresh_bounds_and_samples(c, view, block, bound_radius);
}

/* Trilinear sample of the grid inside the box c0 .. c0 + size - 1 (u in
 * cells), clamped to it; `base` is the box's node (0, 0, 0) and sy, sz the
 * grid's strides. A pre-image beyond the box gets the clamped value plus its
 * distance beyond (in cells), as cr_asset_sdf does beyond the grid: a node
 * just above a deep dent looks up a point above the old surface, often above
 * the grid, and clamping alone gave it the old surface's value, so the grid
 * above the crater still said "surface here" and a ball rested on air at the
 * old height. The box is read in the live grid: a patch writes its new
 * values apart (cr_surface_patch_box) until it commits, so the values read
 * are the old ones wherever the box is. */
static cr_real sample_box(const cr_real *base, int32_t sy, int32_t sz, const int32_t c0[3], const int32_t size[3],
                          cr_vec3 u, cr_real cell) {
    cr_real uu[3] = {u.x - cr_from_int(c0[0]), u.y - cr_from_int(c0[1]), u.z - cr_from_int(c0[2])};
    int32_t i[3];
    cr_real f[3];
    cr_real beyond2 = 0;
    /* most pre-images lie inside the box, away from its last layer: the
     * clamps below would change nothing there (the same bits, fewer branches) */
    bool inside = true;
    for (int k = 0; k < 3; ++k) inside = inside && uu[k] >= 0 && uu[k] < cr_from_int(size[k] - 1);
    if (inside) {
        for (int k = 0; k < 3; ++k) i[k] = cr_floor_int(uu[k]), f[k] = uu[k] - cr_from_int(i[k]);
        const cr_real *o = base + i[0] + i[1] * sy + i[2] * sz;
        cr_real x00 = o[0] + cr_mul(f[0], o[1] - o[0]), x10 = o[sy] + cr_mul(f[0], o[sy + 1] - o[sy]);
        cr_real x01 = o[sz] + cr_mul(f[0], o[sz + 1] - o[sz]), x11 = o[sz + sy] + cr_mul(f[0], o[sz + sy + 1] - o[sz + sy]);
        cr_real y0 = x00 + cr_mul(f[1], x10 - x00), y1 = x01 + cr_mul(f[1], x11 - x01);
        return y0 + cr_mul(f[2], y1 - y0);
    }
    for (int k = 0; k < 3; ++k) {
        cr_real hi = cr_from_int(size[k] - 1);
        cr_real c = cr_clamp(uu[k], 0, hi);
        beyond2 += cr_mul(uu[k] - c, uu[k] - c);
        uu[k] = c;
        i[k] = cr_floor_int(uu[k]);
        if (i[k] > size[k] - 2) i[k] = size[k] - 2;
        if (i[k] < 0) i[k] = 0;
        f[k] = uu[k] - cr_from_int(i[k]);
        if (size[k] == 1) f[k] = 0;
    }
    const cr_real *o = base + i[0] + i[1] * sy + i[2] * sz;
    int32_t dx = size[0] > 1 ? 1 : 0, dy = size[1] > 1 ? sy : 0, dz = size[2] > 1 ? sz : 0;
    cr_real x00 = o[0] + cr_mul(f[0], o[dx] - o[0]), x10 = o[dy] + cr_mul(f[0], o[dy + dx] - o[dy]);
    cr_real x01 = o[dz] + cr_mul(f[0], o[dz + dx] - o[dz]), x11 = o[dz + dy] + cr_mul(f[0], o[dz + dy + dx] - o[dz + dy]);
    cr_real y0 = x00 + cr_mul(f[1], x10 - x00), y1 = x01 + cr_mul(f[1], x11 - x01);
    cr_real v = y0 + cr_mul(f[2], y1 - y0);
    return beyond2 > 0 ? v + cr_mul(cr_sqrt(beyond2), cell) : v;
}

/* The same read in a saved copy of the box (its own strides). */
static cr_real sample_saved(const cr_real *old, const int32_t c0[3], const int32_t size[3], cr_vec3 u, cr_real cell) {
    return sample_box(old, size[0], size[0] * size[1], c0, size, u, cell);
}

/* Fixed-point iterations that find the pre-image y of a node x (y + D(y) = x).
 * One step, y = x - D(x), is what a displacement varying slowly allows; the
 * walls of a deep dent vary fast, and there x - D(x) lands on the wrong side
 * of the old surface, so the grid disagreed with the dented mesh there. */
#define CR_PATCH_INVERSE_STEPS 3

bool cri_surface_patch_box_plan(cr_surface_patch_box *b, const cr_surface_copy *c, const uint8_t *block, cr_vec3 centre,
                                cr_real reach, cr_real max_move, uint32_t limit) {
    memset(b, 0, sizeof *b);
    const cr_asset *view = (const cr_asset *)(block + c->view);
    int32_t margin = cr_floor_int(cr_mul(max_move, view->sdf_inv_cell)) + 2;
    cr_real pc[3] = {centre.x - view->sdf_origin.x, centre.y - view->sdf_origin.y, centre.z - view->sdf_origin.z};
    for (;;) {
        uint64_t nodes = 1;
        for (int k = 0; k < 3; ++k) {
            int32_t dim = (int32_t)view->sdf_dims[k];
            int32_t lo = cr_floor_int(cr_mul(pc[k] - reach, view->sdf_inv_cell));
            int32_t hi = cr_floor_int(cr_mul(pc[k] + reach, view->sdf_inv_cell)) + 1;
            b->lo[k] = lo < 0 ? 0 : (lo > dim - 1 ? dim - 1 : lo);
            b->hi[k] = hi < 0 ? 0 : (hi > dim - 1 ? dim - 1 : hi);
            b->c0[k] = b->lo[k] - margin < 0 ? 0 : b->lo[k] - margin;
            int32_t c1 = b->hi[k] + margin > dim - 1 ? dim - 1 : b->hi[k] + margin;
            b->size[k] = c1 - b->c0[k] + 1;
            nodes *= (uint64_t)b->size[k];
        }
        if (nodes <= limit) break;
        /* a change larger than the budget: patch its core only (counted) */
        b->shrunk = true;
        reach = cr_mul(reach, CR_R(0.8));
        if (reach < view->sdf_cell) return false;
    }
    b->nodes = (uint32_t)(b->size[0] * b->size[1] * b->size[2]);
    b->next_y = b->lo[1], b->next_z = b->lo[2];
    b->digest = c->patch_digest;
    return true;
}

uint32_t cri_surface_patch_box_nodes(const cr_surface_patch_box *b) {
    return (uint32_t)((b->hi[0] - b->lo[0] + 1) * (b->hi[1] - b->lo[1] + 1) * (b->hi[2] - b->lo[2] + 1));
}

/* The grid's gradient at node (x, y, z), per cell: central differences,
 * one-sided at the grid's faces. */
static cr_vec3 node_gradient(const cr_real *sdf, const uint32_t dims[3], int32_t x, int32_t y, int32_t z) {
    const int32_t at[3] = {x, y, z};
    const int32_t stride[3] = {1, (int32_t)dims[0], (int32_t)(dims[0] * dims[1])};
    const cr_real *o = sdf + x + y * stride[1] + z * stride[2];
    cr_real g[3];
    for (int k = 0; k < 3; ++k) {
        const bool down = at[k] > 0, up = at[k] < (int32_t)dims[k] - 1;
        if (down && up) g[k] = cr_half(o[stride[k]] - o[-stride[k]]);
        else if (up) g[k] = o[stride[k]] - o[0];
        else if (down) g[k] = o[0] - o[-stride[k]];
        else g[k] = 0;
    }
    return cr_v3(g[0], g[1], g[2]);
}

uint32_t cri_surface_patch_box_rows(cr_surface_patch_box *b, const cr_surface_copy *c, const uint8_t *block,
                                    cr_surface_displacement_fn *disp, const void *ctx, cr_real *staged, uint32_t rows,
                                    cr_surface_patch_count *count) {
    const cr_asset *view = (const cr_asset *)(block + c->view);
    const cr_real *sdf = (const cr_real *)(block + c->sdf);
    const int32_t nx = (int32_t)view->sdf_dims[0], nxy = nx * (int32_t)view->sdf_dims[1];
    const cr_real *base = sdf + b->c0[2] * nxy + b->c0[1] * nx + b->c0[0];
    const int32_t wx = b->hi[0] - b->lo[0] + 1, wy = b->hi[1] - b->lo[1] + 1;
    const cr_real linear2 = b->linear > 0 ? cr_sq(cr_mul(view->sdf_cell, b->linear)) : -1;
    cr_surface_patch_count n = {0, 0, 0};
    uint32_t done = 0;
    while (done < rows && b->next_z <= b->hi[2]) {
        const int32_t y = b->next_y, z = b->next_z;
        cr_real *out = staged + ((z - b->lo[2]) * wy + (y - b->lo[1])) * wx;
        for (int32_t x = b->lo[0]; x <= b->hi[0]; ++x) {
            const uint32_t at = (uint32_t)(z * nxy + y * nx + x);
            out[x - b->lo[0]] = sdf[at]; /* left as it is unless the change moves it */
            cr_vec3 node = cr_v3(view->sdf_origin.x + cr_mul(cr_from_int(x), view->sdf_cell),
                                 view->sdf_origin.y + cr_mul(cr_from_int(y), view->sdf_cell),
                                 view->sdf_origin.z + cr_mul(cr_from_int(z), view->sdf_cell));
            cr_vec3 d = disp(ctx, node);
            n.probed++;
            if (d.x == 0 && d.y == 0 && d.z == 0) continue;
            cr_real v;
            if (cr_v3_len_sq(d) < linear2) {
                cr_vec3 g = node_gradient(sdf, view->sdf_dims, x, y, z);
                v = sdf[at] - cr_mul(cr_v3_dot(g, d), view->sdf_inv_cell);
                n.linear++;
            } else {
                cr_vec3 pre = cr_v3_sub(node, d);
                for (int it = 1; it < CR_PATCH_INVERSE_STEPS; ++it) {
                    cr_vec3 next = cr_v3_sub(node, disp(ctx, pre));
                    /* a fixed point reached exactly stays (disp is a function): the
                     * same bits with fewer reads, often for a piecewise-constant
                     * field such as a fracture piece's carried dents */
                    if (next.x == pre.x && next.y == pre.y && next.z == pre.z) break;
                    pre = next;
                }
                cr_vec3 u = cr_v3_scale(cr_v3_sub(pre, view->sdf_origin), view->sdf_inv_cell);
                v = sample_box(base, nx, nxy, b->c0, b->size, u, view->sdf_cell);
                n.moved++;
            }
            out[x - b->lo[0]] = v;
            b->digest = cr_hash_real(cr_hash_u32(b->digest, at), v);
        }
        ++done;
        if (++b->next_y > b->hi[1]) b->next_y = b->lo[1], b->next_z++;
    }
    if (count != NULL) count->probed += n.probed, count->linear += n.linear, count->moved += n.moved;
    return done;
}

bool cri_surface_patch_box_done(const cr_surface_patch_box *b) { return b->next_z > b->hi[2]; }

uint32_t cri_surface_patch_box_commit(const cr_surface_patch_box *b, cr_surface_copy *c, uint8_t *block,
                                      const cr_real *staged) {
    const cr_asset *view = (const cr_asset *)(block + c->view);
    cr_real *sdf = (cr_real *)(block + c->sdf);
    const uint32_t nx = view->sdf_dims[0], nxy = nx * view->sdf_dims[1];
    const int32_t wx = b->hi[0] - b->lo[0] + 1, wy = b->hi[1] - b->lo[1] + 1;
    for (int32_t z = b->lo[2]; z <= b->hi[2]; ++z)
        for (int32_t y = b->lo[1]; y <= b->hi[1]; ++y)
            memcpy(sdf + (uint32_t)z * nxy + (uint32_t)y * nx + (uint32_t)b->lo[0],
                   staged + ((z - b->lo[2]) * wy + (y - b->lo[1])) * wx, (size_t)wx * sizeof(cr_real));
    c->patch_digest = b->digest;
    return cri_surface_patch_box_nodes(b);
}

cr_surface_patch cri_surface_copy_patch(cr_surface_copy *c, uint8_t *block, cr_vec3 centre, cr_real reach,
                                       cr_real max_move, cr_surface_displacement_fn *disp, const void *ctx,
                                       uint32_t budget, cr_real *staged, uint32_t scratch_nodes) {
    cr_surface_patch out = {0, false};
    cr_surface_patch_box b;
    bool ok = cri_surface_patch_box_plan(&b, c, block, centre, reach, max_move, budget < scratch_nodes ? budget : scratch_nodes);
    out.shrunk = b.shrunk;
    if (!ok) return out;
    cri_surface_patch_box_rows(&b, c, block, disp, ctx, staged, UINT32_MAX, NULL);
    cri_surface_patch_box_commit(&b, c, block, staged);
    out.nodes = b.nodes;
    return out;
}

static inline cr_vec3 field_read(const cr_patch_field *m, cr_vec3 p) {
    const cr_real u[3] = {cr_mul(p.x - m->origin.x, m->inv_cell), cr_mul(p.y - m->origin.y, m->inv_cell),
                          cr_mul(p.z - m->origin.z, m->inv_cell)};
    int32_t i[3];
    cr_real f[3];
    for (int k = 0; k < 3; ++k) {
        i[k] = cr_floor_int(u[k]);
        if (i[k] < 0 || i[k] >= m->dims[k] - 1) return cr_v3_zero(); /* beyond the box: the field is 0 there */
        f[k] = u[k] - cr_from_int(i[k]);
    }
    /* the four rows (y, z), (y + 1, z), (y, z + 1), (y + 1, z + 1); a row the
     * splat never reached holds no values (it was not cleared) and reads 0 */
    const cr_real *row[4];
    for (int k = 0; k < 4; ++k) {
        const int32_t r = (i[1] + (k & 1)) + (i[2] + (k >> 1)) * m->dims[1];
        row[k] = m->span != NULL && m->span[2 * r] > m->span[2 * r + 1] ? NULL : m->f + r * m->dims[0] + i[0];
    }
    cr_real out[3];
    for (int c = 0; c < 3; ++c) {
        cr_real x[4];
        for (int k = 0; k < 4; ++k) {
            const cr_real *q = row[k] != NULL ? row[k] + (size_t)c * m->nodes : NULL;
            x[k] = q != NULL ? q[0] + cr_mul(f[0], q[1] - q[0]) : 0;
        }
        cr_real y0 = x[0] + cr_mul(f[1], x[1] - x[0]), y1 = x[2] + cr_mul(f[1], x[3] - x[2]);
        out[c] = y0 + cr_mul(f[2], y1 - y0);
    }
    return cr_v3(out[0], out[1], out[2]);
}

cr_vec3 cri_patch_field_at(const void *ctx, cr_vec3 p) { return field_read((const cr_patch_field *)ctx, p); }

/* One patched node's share of the digest: a mix of its index and value's
 * bits. The field patch sums the nodes' mixes and hashes the sum once: the
 * byte-wise hash per node was a chain of 8 (fixed: 12) dependent multiplies,
 * a third of the patch's time; the sum's terms are independent. */
static uint64_t node_mix(uint32_t at, cr_real v) {
#if CR_FIXED
    uint64_t x = (uint64_t)v;
#else
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t x = bits;
#endif
    x ^= (uint64_t)at * 0x9e3779b97f4a7c15ull;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 31);
}

/* A node that moved less than this many cells takes the first-order value
 * phi_old(x - D) = phi_old(x) - grad phi_old(x) . D, the gradient by central
 * differences of the saved nodes: no pre-image iteration and no trilinear
 * reads. Its error is about |D|^2 / 2 times the field's curvature plus |D|
 * times how fast D varies; the lazy patch moves nodes by half a cell or so
 * at a time, where both are a few hundredths of a cell on the barrel. */
#define CR_PATCH_LINEAR CR_R(0.5)

static cr_real linear_value(const cr_real *old, const int32_t c0[3], const int32_t size[3], int32_t x, int32_t y,
                            int32_t z, cr_vec3 move, cr_real inv_cell) {
    const int32_t i[3] = {x - c0[0], y - c0[1], z - c0[2]};
    const int32_t stride[3] = {1, size[0], size[0] * size[1]};
    const cr_real *o = old + i[0] + i[1] * stride[1] + i[2] * stride[2];
    cr_real g[3];
    for (int k = 0; k < 3; ++k) {
        /* central where both neighbours are saved, one-sided at the saved box's faces */
        const bool down = i[k] > 0, up = i[k] < size[k] - 1;
        if (down && up) g[k] = cr_half(o[stride[k]] - o[-stride[k]]);
        else if (up) g[k] = o[stride[k]] - o[0];
        else if (down) g[k] = o[0] - o[-stride[k]];
        else g[k] = 0;
    }
    cr_real along = cr_mul(g[0], move.x) + cr_mul(g[1], move.y) + cr_mul(g[2], move.z);
    return o[0] - cr_mul(along, inv_cell);
}

cr_surface_patch cri_surface_copy_patch_field(cr_surface_copy *c, uint8_t *block, const cr_patch_field *field,
                                             cr_real max_move, cr_real *old, uint32_t scratch_nodes) {
    cr_surface_patch out = {0, false};
    const cr_asset *view = (const cr_asset *)(block + c->view);
    cr_real *sdf = (cr_real *)(block + c->sdf);
    int32_t margin = cr_floor_int(cr_mul(max_move, view->sdf_inv_cell)) + 2;
    int32_t lo[3], hi[3], c0[3], size[3];
    uint64_t nodes = 1;
    for (int k = 0; k < 3; ++k) {
        int32_t dim = (int32_t)view->sdf_dims[k];
        /* the box's inner nodes (its outer layer is 0), inside the grid */
        lo[k] = field->first[k] + 1, hi[k] = field->first[k] + field->dims[k] - 2;
        lo[k] = lo[k] < 0 ? 0 : lo[k], hi[k] = hi[k] > dim - 1 ? dim - 1 : hi[k];
        if (lo[k] > hi[k]) return out;
        c0[k] = lo[k] - margin < 0 ? 0 : lo[k] - margin;
        int32_t c1 = hi[k] + margin > dim - 1 ? dim - 1 : hi[k] + margin;
        size[k] = c1 - c0[k] + 1;
        nodes *= (uint64_t)size[k];
    }
    if (nodes > scratch_nodes) {
        out.shrunk = true;
        return out;
    }
    uint32_t nx = view->sdf_dims[0], nxy = nx * view->sdf_dims[1];
    for (int32_t z = 0; z < size[2]; ++z)
        for (int32_t y = 0; y < size[1]; ++y)
            memcpy(old + (uint32_t)(z * size[1] + y) * (uint32_t)size[0],
                   sdf + (uint32_t)(c0[2] + z) * nxy + (uint32_t)(c0[1] + y) * nx + (uint32_t)c0[0],
                   (size_t)size[0] * sizeof(cr_real));
    const cr_real settle2 = cr_sq(cr_mul(view->sdf_cell, CR_R(0.015625)));
    const cr_real linear2 = cr_sq(cr_mul(view->sdf_cell, CR_PATCH_LINEAR));
    uint64_t digest = 0;
    const int32_t fy = field->dims[0];
    for (int32_t z = lo[2]; z <= hi[2]; ++z)
        for (int32_t y = lo[1]; y <= hi[1]; ++y) {
            const int32_t r = (z - field->first[2]) * field->dims[1] + (y - field->first[1]);
            const cr_real *row = field->f + (r * fy - field->first[0]);
            /* only the x the splat reached in this row: most of the box is 0 */
            int32_t x0 = lo[0], x1 = hi[0];
            if (field->span != NULL) {
                x0 = x0 > field->span[2 * r] + field->first[0] ? x0 : field->span[2 * r] + field->first[0];
                x1 = x1 < field->span[2 * r + 1] + field->first[0] ? x1 : field->span[2 * r + 1] + field->first[0];
            }
            for (int32_t x = x0; x <= x1; ++x) {
                const cr_real fd[3] = {row[x], row[x + (int32_t)field->nodes], row[x + 2 * (int32_t)field->nodes]};
                if (fd[0] == 0 && fd[1] == 0 && fd[2] == 0) continue;
                cr_vec3 node = cr_v3(view->sdf_origin.x + cr_mul(cr_from_int(x), view->sdf_cell),
                                     view->sdf_origin.y + cr_mul(cr_from_int(y), view->sdf_cell),
                                     view->sdf_origin.z + cr_mul(cr_from_int(z), view->sdf_cell));
                cr_vec3 move = cr_v3(fd[0], fd[1], fd[2]);
                uint32_t at = (uint32_t)z * nxy + (uint32_t)y * nx + (uint32_t)x;
                if (cr_v3_len_sq(move) < linear2) {
                    cr_real v = linear_value(old, c0, size, x, y, z, move, view->sdf_inv_cell);
                    sdf[at] = v;
                    digest += node_mix(at, v);
                    continue;
                }
                cr_vec3 pre = cr_v3_sub(node, move);
                /* a step corrects by at most |D| (the field moves less than it is far), so a node
                 * moved less than the tolerance needs none */
                const int steps = cr_v3_len_sq(move) < settle2 ? 1 : CR_PATCH_INVERSE_STEPS;
                for (int it = 1; it < steps; ++it) {
                    cr_vec3 next = cr_v3_sub(node, field_read(field, pre));
                    cr_real step2 = cr_v3_len_sq(cr_v3_sub(next, pre));
                    pre = next;
                    if (step2 < settle2) break; /* where the field varies slowly one step is already there */
                }
                cr_vec3 u = cr_v3_scale(cr_v3_sub(pre, view->sdf_origin), view->sdf_inv_cell);
                cr_real v = sample_saved(old, c0, size, u, view->sdf_cell);
                sdf[at] = v;
                digest += node_mix(at, v);
            }
        }
    c->patch_digest = cr_hash_u64(c->patch_digest, digest);
    out.nodes = (uint32_t)nodes;
    return out;
}

/* Volume of the closed surface (divergence theorem), m^3. */
static cr_real surface_volume(const cr_vec3 *pos, const uint32_t *tri, uint32_t count) {
    cr_real six_v = 0;
    for (uint32_t t = 0; t < count; ++t)
        six_v += cr_v3_dot(pos[tri[3 * t]], cr_v3_cross(pos[tri[3 * t + 1]], pos[tri[3 * t + 2]]));
    return cr_div(six_v, CR_R(6));
}

cr_real cri_surface_copy_volume_ratio(const cr_surface_copy *c, uint8_t *block, const cr_asset *rest) {
    const cr_asset *view = (const cr_asset *)(block + c->view);
    cr_real v0 = surface_volume(rest->positions, rest->triangles, rest->triangle_count);
    cr_real v1 = surface_volume(view->positions, view->triangles, view->triangle_count);
    if (v0 <= 0 || v1 <= 0) return 0;
    return cr_div(v1, v0);
}
