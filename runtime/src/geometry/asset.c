/* asset.c — the cooked-asset loader: validate everything, then build the view.
 *
 * cr_asset_load runs in two phases. The first reads the file only through
 * bounds-checked little-endian accessors and checks every number the second
 * phase will rely on (header, checksum, section table, counts, offsets, each
 * float, each index, each CSR list, bone order, quaternion lengths, skin
 * weights). Only then does the second phase convert or alias arrays, so it
 * contains no checks at all and cannot be reached with a bad file.
 *
 * Notes
 *   - No float arithmetic is used to validate: finiteness and magnitude are
 *     read from the exponent bits, and sums are done in cr_real, so a fixed
 *     build on an FPU-less target validates exactly like a float build.
 *   - Offsets and sizes are 32-bit in the file but compared in 64-bit, so no
 *     sum of hostile values can wrap around.
 *   - Which arrays alias the file and which are copied depends only on the
 *     build mode and on whether `bytes` is 4-byte aligned on a little-endian
 *     host; cr_asset_memory_size and cr_asset_load share plan() so they agree.
 */
#include "crumple/asset.h"
#include "geometry/asset_format.h"
#include "crumple/squash.h"

#include <string.h>

/* ---- names of checks ---------------------------------------------------- */

const char *cr_asset_check_name(cr_asset_check c) {
    switch (c) {
#define CR_X_ACN_(name, msg) \
    case name:               \
        return #name;
        CR_ASSET_CHECK_LIST(CR_X_ACN_)
#undef CR_X_ACN_
    default:
        return "CR_ASSET_UNKNOWN_CHECK";
    }
}

const char *cr_asset_check_message(cr_asset_check c) {
    switch (c) {
#define CR_X_ACM_(name, msg) \
    case name:               \
        return msg;
        CR_ASSET_CHECK_LIST(CR_X_ACM_)
#undef CR_X_ACM_
    default:
        return "unknown check";
    }
}

/* ---- little-endian access ----------------------------------------------- */

static uint32_t rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t rd_u64(const uint8_t *p) { return (uint64_t)rd_u32(p) | ((uint64_t)rd_u32(p + 4) << 32); }

static float bits_to_float(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static cr_real rd_real(const uint8_t *p) { return cr_from_float(bits_to_float(rd_u32(p))); }

static cr_vec3 rd_vec3(const uint8_t *p) { return cr_v3(rd_real(p), rd_real(p + 4), rd_real(p + 8)); }

static cr_quat rd_quat(const uint8_t *p) {
    cr_quat q = {rd_real(p), rd_real(p + 4), rd_real(p + 8), rd_real(p + 12)};
    return q;
}

static bool host_is_little_endian(void) {
    const uint32_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ---- checksum ------------------------------------------------------------ */

/* One multiply per 8-byte word. Each step h -> (h ^ w) * odd is a bijection
 * of h, so changing any single word (and so any single byte) always changes
 * the result; the final mix spreads that change over all 64 bits. */
uint64_t cr_asset_checksum(const void *bytes, size_t size) {
    const uint8_t *p = (const uint8_t *)bytes;
    const uint64_t prime = 0x100000001b3ull;
    uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)size * 0x9e3779b97f4a7c15ull);
    size_t i = 0;
    for (; i + 8 <= size; i += 8) h = (h ^ rd_u64(p + i)) * prime;
    if (i < size) {
        uint64_t w = 0;
        for (size_t k = 0; i + k < size; ++k) w |= (uint64_t)p[i + k] << (8 * k);
        h = (h ^ w) * prime;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    return h;
}

/* ---- phase 1: validation -------------------------------------------------- */

typedef struct section_ref {
    uint32_t offset, size, count;
} section_ref;

typedef struct parsed {
    const uint8_t *b;
    uint64_t size;
    section_ref sec[CR_ASSET_SECTION_COUNT];
    uint32_t vertex_count, triangle_count, sample_count, dims[3], node_count;
    uint32_t adjacency_count, geodesic_count, bone_count, example_count;
    uint32_t patch_count, geodesic_lists; /* patches (0: lists per vertex), and so lists */
    uint32_t flags;
} parsed;

static uint32_t section_tag(cr_asset_section_id id) {
    switch (id) {
#define CR_X_SEC_TAG_(id, a, b, c, d, sz) \
    case CR_ASEC_##id:                    \
        return CR_ASSET_TAG(a, b, c, d);
        CR_ASSET_SECTION_LIST(CR_X_SEC_TAG_)
#undef CR_X_SEC_TAG_
    default:
        return 0;
    }
}

static uint32_t section_elem_size(cr_asset_section_id id) {
    switch (id) {
#define CR_X_SEC_SZ_(id, a, b, c, d, sz) \
    case CR_ASEC_##id:                   \
        return sz;
        CR_ASSET_SECTION_LIST(CR_X_SEC_SZ_)
#undef CR_X_SEC_SZ_
    default:
        return 0;
    }
}

static cr_asset_check fail(cr_asset_error *e, cr_asset_check c, uint32_t tag, uint32_t index) {
    if (e != NULL) {
        e->check = c;
        memset(e->section_tag, 0, sizeof e->section_tag);
        for (int k = 0; k < 4 && tag != 0; ++k) {
            char ch = (char)((tag >> (8 * k)) & 0xffu);
            /* a hostile tag may hold any byte: keep the message printable */
            e->section_tag[k] = (ch >= 32 && ch < 127) ? ch : '?';
        }
        e->index = index;
    }
    return c;
}

/* A float is acceptable if it is finite and |x| < 2^20 (CR_ASSET_MAX_COORD),
 * which keeps every product the runtime forms inside Q32.32. Decided from
 * the exponent bits alone. */
static bool float_bits_ok(uint32_t bits) { return ((bits >> 23) & 0xffu) < 127u + 20u; }
static bool float_bits_finite(uint32_t bits) { return ((bits >> 23) & 0xffu) != 0xffu; }
static bool float_bits_negative(uint32_t bits) { return (bits >> 31) != 0 && (bits & 0x7fffffffu) != 0; }

static const uint8_t *sec_ptr(const parsed *ps, cr_asset_section_id id) { return ps->b + ps->sec[id].offset; }

/* Every float of a section of floats (count elements of n floats each). */
static cr_asset_check check_floats(const parsed *ps, cr_asset_section_id id, uint32_t per_elem, uint32_t stride,
                                   uint32_t first, cr_asset_error *e) {
    const uint8_t *p = sec_ptr(ps, id);
    for (uint32_t i = 0; i < ps->sec[id].count; ++i) {
        for (uint32_t k = 0; k < per_elem; ++k) {
            uint32_t bits = rd_u32(p + (uint64_t)i * stride + first + 4u * k);
            if (!float_bits_finite(bits)) return fail(e, CR_ASSET_NOT_FINITE, section_tag(id), i);
            if (!float_bits_ok(bits)) return fail(e, CR_ASSET_VALUE_RANGE, section_tag(id), i);
        }
    }
    return CR_ASSET_OK;
}

static bool quat_is_unit(cr_quat q) {
    cr_real n2 = cr_mul(q.x, q.x) + cr_mul(q.y, q.y) + cr_mul(q.z, q.z) + cr_mul(q.w, q.w);
    return cr_abs(n2 - CR_R(1)) <= CR_R(1e-3);
}

/* ---- physical plausibility ------------------------------------------------
 *
 * Ranges alone let through values no solid can have, and the solver divides by
 * them: moments (1.9e-36, 3.6e-43, 5.33) pass every range yet fill a float
 * step with NaN. So the loader also checks what physics says must hold, with
 * margins wide enough for the cooker's own approximations. Only divisions,
 * which saturate in fixed point, and halved sums are used, so no hostile
 * value can overflow here.
 *
 * Moments, per unit volume (m_k = I_k / V, m^2):
 *   - positive;
 *   - a triangle: m_a + m_b >= m_c for every order (true of every mass
 *     distribution; 1% slack);
 *   - at most r^2 (all mass on the bounding sphere; 5% slack);
 *   - at least V / (4 pi r): the body lies within the sphere of radius r, so
 *     along an axis it spans at most 2r, and a slice of area A has a moment
 *     at least A^2 / 2pi (a disc's), which with Cauchy-Schwarz gives
 *     I >= V^2 / (4 pi r). A quarter of that is required.
 * The bound radius covers every vertex (1e-4 relative slack).
 * The distance grid is 1-Lipschitz: nodes one cell apart differ by at most a
 * cell. A closed mesh's grid must hold that within 1.5 cells plus 1e-4 m; an
 * open mesh's grid is an estimate whose sign can flip across a hole (the
 * shipped bunny's jumps reach 4.8 cells), so it gets 8 cells. Either bound
 * keeps the gradient, a difference over a cell, far inside Q32.32, where an
 * arbitrary grid could reach 2^37. */
static cr_asset_check check_plausible(const parsed *ps, cr_asset_error *e) {
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    uint32_t info_tag = section_tag(CR_ASEC_INFO);
    cr_real volume = rd_real(info + CR_AI_VOLUME), r = rd_real(info + CR_AI_BOUND_RADIUS);
    if (!(r > 0)) return fail(e, CR_ASSET_BAD_BOUND_RADIUS, info_tag, CR_AI_BOUND_RADIUS);
    cr_vec3 inertia = rd_vec3(info + CR_AI_INERTIA);
    cr_real m[3] = {cr_div(inertia.x, volume), cr_div(inertia.y, volume), cr_div(inertia.z, volume)};
    cr_real least = cr_mul(cr_div(volume, r), CR_R(0.25 / (4.0 * 3.14159265358979323846)));
    for (int k = 0; k < 3; ++k) {
        uint32_t at = CR_AI_INERTIA + 4u * (uint32_t)k;
        if (!(m[k] > 0) || m[k] < least) return fail(e, CR_ASSET_BAD_INERTIA, info_tag, at);
        if (cr_div(m[k], r) > cr_mul(r, CR_R(1.05)) + CR_R(1e-6)) return fail(e, CR_ASSET_BAD_INERTIA, info_tag, at);
        cr_real others = cr_half(m[(k + 1) % 3]) + cr_half(m[(k + 2) % 3]);
        if (others < cr_mul(cr_half(m[k]), CR_R(0.99))) return fail(e, CR_ASSET_BAD_INERTIA, info_tag, at);
    }
    /* every vertex inside the bound sphere, measured in units of its radius */
    cr_real reach = cr_mul(r, CR_R(1.0001)) + CR_R(1e-6);
    const uint8_t *pos = sec_ptr(ps, CR_ASEC_VPOS);
    for (uint32_t i = 0; i < ps->vertex_count; ++i) {
        cr_vec3 p = rd_vec3(pos + 12ull * i);
        cr_vec3 u = cr_v3(cr_div(p.x, reach), cr_div(p.y, reach), cr_div(p.z, reach));
        if (cr_abs(u.x) > CR_R(1) || cr_abs(u.y) > CR_R(1) || cr_abs(u.z) > CR_R(1) || cr_v3_len_sq(u) > CR_R(1))
            return fail(e, CR_ASSET_BAD_BOUND_RADIUS, section_tag(CR_ASEC_VPOS), i);
    }
    cr_real cell = rd_real(info + CR_AI_SDF_CELL);
    cr_real step = cr_mul(cell, (ps->flags & CR_ASSET_FLAG_CLOSED) ? CR_R(1.5) : CR_R(8)) + CR_R(1e-4);
    const uint8_t *sdf = sec_ptr(ps, CR_ASEC_SDFV);
    uint64_t nx = ps->dims[0], ny = ps->dims[1], nz = ps->dims[2];
    const uint64_t stride[3] = {1, nx, nx * ny};
    for (uint64_t z = 0; z < nz; ++z)
        for (uint64_t y = 0; y < ny; ++y)
            for (uint64_t x = 0; x < nx; ++x) {
                uint64_t at = x + nx * (y + ny * z);
                cr_real d = rd_real(sdf + 4 * at);
                const bool has[3] = {x + 1 < nx, y + 1 < ny, z + 1 < nz};
                for (int k = 0; k < 3; ++k)
                    if (has[k] && cr_abs(rd_real(sdf + 4 * (at + stride[k])) - d) > step)
                        return fail(e, CR_ASSET_BAD_SDF, section_tag(CR_ASEC_SDFV), (uint32_t)at);
            }
    return CR_ASSET_OK;
}

/* Header and section table only: enough to size the block. */
static cr_asset_check check_layout(parsed *ps, const void *bytes, size_t size, cr_asset_error *e) {
    memset(ps, 0, sizeof *ps);
    ps->b = (const uint8_t *)bytes;
    ps->size = (uint64_t)size;
    const uint8_t *b = ps->b;
    if (bytes == NULL) return fail(e, CR_ASSET_NULL_ARGUMENT, 0, 0);
    if (size < CR_ASSET_HEADER_SIZE) {
        /* a prefix of the magic is still "a truncated asset", anything else is not an asset */
        size_t n = size < 8 ? size : 8;
        return fail(e, memcmp(b, CR_ASSET_MAGIC, n) == 0 ? CR_ASSET_TRUNCATED : CR_ASSET_BAD_MAGIC, 0, (uint32_t)size);
    }
    if (memcmp(b + CR_AH_MAGIC, CR_ASSET_MAGIC, 8) != 0) return fail(e, CR_ASSET_BAD_MAGIC, 0, CR_AH_MAGIC);
    if (rd_u32(b + CR_AH_VERSION) != CR_ASSET_VERSION) return fail(e, CR_ASSET_BAD_VERSION, 0, CR_AH_VERSION);
    if (rd_u32(b + CR_AH_HEADER_SIZE) != CR_ASSET_HEADER_SIZE) return fail(e, CR_ASSET_BAD_HEADER, 0, CR_AH_HEADER_SIZE);
    if (rd_u32(b + CR_AH_ENDIAN) != CR_ASSET_ENDIAN_MARK) return fail(e, CR_ASSET_BAD_HEADER, 0, CR_AH_ENDIAN);
    ps->flags = rd_u32(b + CR_AH_FLAGS);
    if (ps->flags & ~CR_ASSET_FLAGS_KNOWN) return fail(e, CR_ASSET_BAD_HEADER, 0, CR_AH_FLAGS);
    for (uint32_t i = CR_AH_RESERVED; i < CR_ASSET_HEADER_SIZE; ++i)
        if (b[i] != 0) return fail(e, CR_ASSET_BAD_HEADER, 0, i);
    uint64_t file_size = rd_u32(b + CR_AH_FILE_SIZE);
    if (file_size > ps->size) return fail(e, CR_ASSET_TRUNCATED, 0, CR_AH_FILE_SIZE);
    if (file_size != ps->size || file_size > CR_ASSET_MAX_FILE_SIZE)
        return fail(e, CR_ASSET_BAD_FILE_SIZE, 0, CR_AH_FILE_SIZE);

    uint32_t entries = rd_u32(b + CR_AH_SECTION_COUNT);
    if (entries < CR_ASSET_REQUIRED_SECTIONS || entries > CR_ASSET_SECTION_COUNT)
        return fail(e, CR_ASSET_BAD_SECTION_TABLE, 0, CR_AH_SECTION_COUNT);
    uint64_t table = rd_u32(b + CR_AH_TABLE_OFFSET);
    uint64_t table_end = table + (uint64_t)entries * CR_ASSET_ENTRY_SIZE;
    if (table != CR_ASSET_HEADER_SIZE || table_end > file_size)
        return fail(e, CR_ASSET_BAD_SECTION_TABLE, 0, CR_AH_TABLE_OFFSET);

    /* tags first, so a renamed entry is reported as what it is (unknown or
     * repeated) rather than as a size mismatch of whatever it now claims to be */
    int ids[CR_ASSET_SECTION_COUNT];
    bool seen[CR_ASSET_SECTION_COUNT] = {false};
    for (uint32_t s = 0; s < entries; ++s) {
        uint32_t tag = rd_u32(b + table + (uint64_t)s * CR_ASSET_ENTRY_SIZE);
        int id = -1;
        for (int k = 0; k < (int)CR_ASSET_SECTION_COUNT; ++k)
            if (section_tag((cr_asset_section_id)k) == tag) id = k;
        /* past the required entries an unknown tag is the payload: the count claims more entries than the table has */
        if (id < 0 && s >= CR_ASSET_REQUIRED_SECTIONS) return fail(e, CR_ASSET_BAD_SECTION_TABLE, 0, CR_AH_SECTION_COUNT);
        if (id < 0) return fail(e, CR_ASSET_UNKNOWN_SECTION, tag, s);
        if (seen[id]) return fail(e, CR_ASSET_DUPLICATE_SECTION, tag, s);
        seen[id] = true;
        ids[s] = id;
    }
    /* the required sections must all be there; an optional one left out is empty */
    for (uint32_t k = 0; k < CR_ASSET_REQUIRED_SECTIONS; ++k)
        if (!seen[k]) return fail(e, CR_ASSET_BAD_SECTION_TABLE, section_tag((cr_asset_section_id)k), CR_AH_SECTION_COUNT);
    memset(ps->sec, 0, sizeof ps->sec);
    for (uint32_t s = 0; s < entries; ++s) {
        const uint8_t *en = b + table + (uint64_t)s * CR_ASSET_ENTRY_SIZE;
        uint32_t tag = rd_u32(en);
        int id = ids[s];
        section_ref r = {rd_u32(en + 4), rd_u32(en + 8), rd_u32(en + 12)};
        if (r.offset % CR_ASSET_ALIGN != 0) return fail(e, CR_ASSET_SECTION_ALIGN, tag, r.offset);
        if ((uint64_t)r.offset < table_end || (uint64_t)r.offset + r.size > file_size)
            return fail(e, CR_ASSET_SECTION_BOUNDS, tag, r.offset);
        if ((uint64_t)r.count * section_elem_size((cr_asset_section_id)id) != r.size)
            return fail(e, CR_ASSET_SECTION_SIZE, tag, r.size);
        ps->sec[id] = r;
    }
    /* every tag is known and none repeats; now overlaps (a left-out section is empty) */
    for (int i = 0; i < (int)CR_ASSET_SECTION_COUNT; ++i)
        for (int j = i + 1; j < (int)CR_ASSET_SECTION_COUNT; ++j) {
            uint64_t a0 = ps->sec[i].offset, a1 = a0 + ps->sec[i].size;
            uint64_t b0 = ps->sec[j].offset, b1 = b0 + ps->sec[j].size;
            if (a0 < b1 && b0 < a1) return fail(e, CR_ASSET_SECTION_BOUNDS, section_tag((cr_asset_section_id)j), (uint32_t)b0);
        }

    /* counts from INFO, and each section's count against them */
    if (ps->sec[CR_ASEC_INFO].count != 1) return fail(e, CR_ASSET_SECTION_SIZE, section_tag(CR_ASEC_INFO), 0);
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    uint32_t info_tag = section_tag(CR_ASEC_INFO);
    ps->vertex_count = rd_u32(info + CR_AI_VERTEX_COUNT);
    ps->triangle_count = rd_u32(info + CR_AI_TRIANGLE_COUNT);
    ps->sample_count = rd_u32(info + CR_AI_SAMPLE_COUNT);
    for (int k = 0; k < 3; ++k) ps->dims[k] = rd_u32(info + CR_AI_SDF_DIMS + 4u * (uint32_t)k);
    ps->adjacency_count = rd_u32(info + CR_AI_ADJACENCY_COUNT);
    ps->geodesic_count = rd_u32(info + CR_AI_GEODESIC_COUNT);
    ps->patch_count = rd_u32(info + CR_AI_GEODESIC_PATCHES);
    ps->bone_count = rd_u32(info + CR_AI_BONE_COUNT);
    ps->example_count = rd_u32(info + CR_AI_EXAMPLE_COUNT);
    if (ps->vertex_count < 3 || ps->vertex_count > CR_ASSET_MAX_VERTICES)
        return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_VERTEX_COUNT);
    if (ps->triangle_count < 1 || ps->triangle_count > CR_ASSET_MAX_TRIANGLES)
        return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_TRIANGLE_COUNT);
    if (ps->sample_count < 1 || ps->sample_count > ps->vertex_count)
        return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_SAMPLE_COUNT);
    uint64_t nodes = 1;
    for (int k = 0; k < 3; ++k) {
        if (ps->dims[k] < 2 || ps->dims[k] > CR_ASSET_MAX_SDF_DIM)
            return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_SDF_DIMS + 4u * (uint32_t)k);
        nodes *= ps->dims[k];
    }
    if (nodes > CR_ASSET_MAX_SDF_NODES) return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_SDF_DIMS);
    ps->node_count = (uint32_t)nodes;
    if (ps->adjacency_count > CR_ASSET_MAX_NEIGHBORS) return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_ADJACENCY_COUNT);
    if (ps->geodesic_count > CR_ASSET_MAX_NEIGHBORS) return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_GEODESIC_COUNT);
    if (ps->patch_count > ps->vertex_count) return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_GEODESIC_PATCHES);
    /* a cooker may leave the neighbourhoods out (`crumple cook --models`):
     * empty start sections with no entries; the models that read them refuse
     * such an asset at attach */
    bool no_geodesics = ps->sec[CR_ASEC_GEOS].count == 0 && ps->geodesic_count == 0 && ps->patch_count == 0;
    bool no_adjacency = ps->sec[CR_ASEC_ADJS].count == 0 && ps->adjacency_count == 0;
    ps->geodesic_lists = no_geodesics ? 0 : ps->patch_count ? ps->patch_count : ps->vertex_count;
    if (ps->bone_count > CR_ASSET_MAX_BONES) return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_BONE_COUNT);
    if (ps->bone_count == 0 ? ps->example_count != 0 : (ps->example_count < 1 || ps->example_count > CR_ASSET_MAX_EXAMPLES))
        return fail(e, CR_ASSET_COUNT_LIMIT, info_tag, CR_AI_EXAMPLE_COUNT);
    uint32_t skinned = ps->bone_count ? ps->vertex_count : 0;
    bool bend = ps->bone_count > 0 && (ps->sec[CR_ASEC_BNDT].count > 0 || ps->sec[CR_ASEC_BNDN].count > 0);
    const uint32_t expect[CR_ASSET_SECTION_COUNT] = {
        [CR_ASEC_INFO] = 1,
        [CR_ASEC_VPOS] = ps->vertex_count,
        [CR_ASEC_VNRM] = ps->vertex_count,
        [CR_ASEC_TRIS] = ps->triangle_count,
        [CR_ASEC_SMPV] = ps->sample_count,
        [CR_ASEC_SMPP] = ps->sample_count,
        [CR_ASEC_SDFV] = ps->node_count,
        [CR_ASEC_ADJS] = no_adjacency ? 0 : ps->vertex_count + 1,
        [CR_ASEC_ADJI] = ps->adjacency_count,
        [CR_ASEC_GEOS] = no_geodesics ? 0 : ps->geodesic_lists + 1,
        [CR_ASEC_GEOI] = ps->geodesic_count,
        [CR_ASEC_GEOD] = ps->geodesic_count,
        [CR_ASEC_BONE] = ps->bone_count,
        [CR_ASEC_SKNI] = skinned,
        [CR_ASEC_SKNW] = skinned,
        [CR_ASEC_EXMP] = ps->example_count * ps->bone_count,
        [CR_ASEC_SQSK] = ps->sec[CR_ASEC_SQSK].count, /* bounded below */
        [CR_ASEC_SQIV] = ps->sec[CR_ASEC_SQSK].count > 0 ? 1u : 0u,
        /* the fracture sections carry their own counts: check_fracture relates them */
        [CR_ASEC_FRCP] = ps->sec[CR_ASEC_FRCP].count,
        [CR_ASEC_FRCB] = ps->sec[CR_ASEC_FRCB].count,
        [CR_ASEC_FRCA] = ps->sec[CR_ASEC_FRCA].count,
        /* a soft asset has both: a weight per vertex and its springs (bounded below) */
        [CR_ASEC_SPRP] = ps->sec[CR_ASEC_SPRS].count > 0 ? ps->vertex_count : 0u,
        [CR_ASEC_SPRS] = ps->sec[CR_ASEC_SPRS].count,
        [CR_ASEC_GPAT] = ps->patch_count ? ps->vertex_count : 0u,
        /* a rigged asset may carry its segmentation: both sections, whole */
        [CR_ASEC_BNDT] = bend ? ps->triangle_count : 0u,
        [CR_ASEC_BNDN] = bend ? ps->node_count : 0u,
        /* and its bones' moments, one per bone, or none (cooked before they existed) */
        [CR_ASEC_BNDM] = bend && ps->sec[CR_ASEC_BNDM].count > 0 ? ps->bone_count : 0u,
    };
    if ((uint64_t)ps->sec[CR_ASEC_SPRS].count > (uint64_t)CR_ASSET_MAX_SOFT_SPRINGS_PER_VERTEX * ps->vertex_count)
        return fail(e, CR_ASSET_COUNT_LIMIT, section_tag(CR_ASEC_SPRS), ps->sec[CR_ASEC_SPRS].count);
    if (ps->sec[CR_ASEC_SQSK].count > CR_ASSET_MAX_SQUASH_PRIMITIVES)
        return fail(e, CR_ASSET_COUNT_LIMIT, section_tag(CR_ASEC_SQSK), ps->sec[CR_ASEC_SQSK].count);
    for (int i = 0; i < (int)CR_ASSET_SECTION_COUNT; ++i)
        if (ps->sec[i].count != expect[i])
            return fail(e, CR_ASSET_SECTION_SIZE, section_tag((cr_asset_section_id)i), ps->sec[i].count);
    return CR_ASSET_OK;
}

/* Bending's per-bone moments (BNDM): what a bone's inside nodes in a grid of
 * these dims can sum to. Each bone b: 0 <= count <= nodes (all bones
 * together too); a bone with no node sums nothing; per axis of n nodes
 * 0 <= sum <= count (n - 1), 0 <= sum_sq <= count (n - 1)^2 and the spread
 * about the mean not negative (sum_sq count >= sum^2, compared exactly
 * without the product: with q = sum / count, r = sum % count,
 * sum (i - q)^2 >= r^2 / count); 0 <= sum_cross <= count (n_a - 1)(n_b - 1).
 * Every product formed is below 2^63 once the ranges hold. The moments are
 * not compared with BNDN's owners (a pass over the grid: what they save);
 * in range they give a positive mass and inertia and a centre inside the
 * grid, so the runtime uses what the file says, as it does the owners. */
static cr_asset_check check_bend_moments(const parsed *ps, cr_asset_error *e) {
    const uint8_t *m = sec_ptr(ps, CR_ASEC_BNDM);
    uint32_t tag = section_tag(CR_ASEC_BNDM);
    int64_t total = 0;
    for (uint32_t b = 0; b < ps->sec[CR_ASEC_BNDM].count; ++b) {
        const uint8_t *el = m + 80ull * b;
        int64_t v[10];
        for (int k = 0; k < 10; ++k) v[k] = (int64_t)rd_u64(el + 8 * k);
        int64_t n = v[0];
        if (n < 0 || n > (int64_t)ps->node_count) return fail(e, CR_ASSET_VALUE_RANGE, tag, b);
        total += n;
        if (total > (int64_t)ps->node_count) return fail(e, CR_ASSET_VALUE_RANGE, tag, b);
        int64_t top[3];
        for (int k = 0; k < 3; ++k) top[k] = (int64_t)ps->dims[k] - 1;
        for (int k = 0; k < 3; ++k) {
            int64_t sum = v[1 + k], sq = v[4 + k];
            if (sum < 0 || sum > n * top[k] || sq < 0 || sq > n * top[k] * top[k]) return fail(e, CR_ASSET_VALUE_RANGE, tag, b);
            if (n == 0) continue;
            int64_t q = sum / n, r = sum % n;
            int64_t spread = sq - 2 * q * sum + q * q * n; /* sum (i - q)^2 */
            if (spread < 0 || spread < (r * r + n - 1) / n) return fail(e, CR_ASSET_VALUE_RANGE, tag, b);
        }
        static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 3; ++k) {
            int64_t x = v[7 + k];
            if (x < 0 || x > n * top[pair[k][0]] * top[pair[k][1]]) return fail(e, CR_ASSET_VALUE_RANGE, tag, b);
        }
    }
    return CR_ASSET_OK;
}

/* A CSR list: start[0] = 0, monotone, start[n] = total; entries < n, not self.
 * `ascending` also requires strictly increasing entries within each list. */
/* CSR lists of vertices: `lists` of them (one per vertex, or per patch when
 * not `per_vertex`: a patch's list holds its centre, a vertex's never itself). */
static cr_asset_check check_csr(const parsed *ps, cr_asset_section_id start_id, cr_asset_section_id item_id, bool ascending,
                                uint32_t lists, bool per_vertex, cr_asset_error *e) {
    if (ps->sec[start_id].count == 0) return CR_ASSET_OK; /* left out (no entries either: the count check) */
    const uint8_t *st = sec_ptr(ps, start_id), *it = sec_ptr(ps, item_id);
    uint32_t n = lists, total = ps->sec[item_id].count;
    if (rd_u32(st) != 0) return fail(e, CR_ASSET_BAD_CSR, section_tag(start_id), 0);
    for (uint32_t v = 0; v < n; ++v) {
        uint32_t s0 = rd_u32(st + 4ull * v), s1 = rd_u32(st + 4ull * (v + 1));
        if (s1 < s0 || s1 > total) return fail(e, CR_ASSET_BAD_CSR, section_tag(start_id), v + 1);
        for (uint32_t k = s0; k < s1; ++k) {
            uint32_t u = rd_u32(it + 4ull * k);
            if (u >= ps->vertex_count || (per_vertex && u == v)) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(item_id), k);
            if (ascending && k > s0 && u <= rd_u32(it + 4ull * (k - 1))) return fail(e, CR_ASSET_BAD_CSR, section_tag(item_id), k);
        }
    }
    if (rd_u32(st + 4ull * n) != total) return fail(e, CR_ASSET_BAD_CSR, section_tag(start_id), n);
    return CR_ASSET_OK;
}

/* Prescored fracture (docs/fracture.md). Pieces: 0, or 2 up to the limit,
 * each naming a 16-aligned range of FRCA, in order, not overlapping, that
 * holds a whole asset (magic, version, its own size, its own checksum: the
 * piece's full validation is its own cr_asset_load); positive volumes that
 * sum to the whole's within 1% (the cooker cuts the whole, it does not add
 * or lose matter); centroids inside the bounds. Bonds: pieces a < b in
 * range, pairs strictly increasing (no bond twice), positive area no larger
 * than the whole's surface, unit normal, centroid inside the bounds. */
static bool inside_bounds(const parsed *ps, cr_vec3 p) {
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    cr_vec3 lo = rd_vec3(info + CR_AI_BOUNDS_MIN), hi = rd_vec3(info + CR_AI_BOUNDS_MAX);
    cr_real slack = cr_mul(rd_real(info + CR_AI_BOUND_RADIUS), CR_R(0.01)) + CR_R(1e-4);
    return p.x >= lo.x - slack && p.x <= hi.x + slack && p.y >= lo.y - slack && p.y <= hi.y + slack && p.z >= lo.z - slack &&
           p.z <= hi.z + slack;
}

static cr_asset_check check_fracture(const parsed *ps, cr_asset_error *e) {
    const section_ref *P = &ps->sec[CR_ASEC_FRCP], *B = &ps->sec[CR_ASEC_FRCB], *A = &ps->sec[CR_ASEC_FRCA];
    uint32_t ptag = section_tag(CR_ASEC_FRCP), btag = section_tag(CR_ASEC_FRCB);
    if (P->count == 0) {
        if (B->count != 0) return fail(e, CR_ASSET_COUNT_LIMIT, btag, B->count);
        if (A->count != 0) return fail(e, CR_ASSET_COUNT_LIMIT, section_tag(CR_ASEC_FRCA), A->count);
        return CR_ASSET_OK;
    }
    if (P->count < 2 || P->count > CR_ASSET_MAX_PIECES) return fail(e, CR_ASSET_COUNT_LIMIT, ptag, P->count);
    if (B->count > 64ull * P->count) return fail(e, CR_ASSET_COUNT_LIMIT, btag, B->count);
    cr_asset_check c;
    if ((c = check_floats(ps, CR_ASEC_FRCP, 4, 24, 8, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_FRCB, 7, 36, 8, e)) != CR_ASSET_OK) return c;
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    const uint8_t *pp = sec_ptr(ps, CR_ASEC_FRCP);
    uint64_t next = A->offset, end = (uint64_t)A->offset + A->size;
    cr_real volume = 0;
    for (uint32_t i = 0; i < P->count; ++i) {
        const uint8_t *el = pp + 24ull * i;
        uint64_t off = rd_u32(el), size = rd_u32(el + 4);
        if (off % CR_ASSET_ALIGN != 0 || off < next || size < CR_ASSET_HEADER_SIZE || off + size > end)
            return fail(e, CR_ASSET_SECTION_BOUNDS, ptag, i);
        next = off + size;
        const uint8_t *pb = ps->b + off;
        if (memcmp(pb + CR_AH_MAGIC, CR_ASSET_MAGIC, 8) != 0 || rd_u32(pb + CR_AH_VERSION) != CR_ASSET_VERSION ||
            rd_u32(pb + CR_AH_FILE_SIZE) != size || cr_asset_checksum(pb + 16, size - 16) != rd_u64(pb + CR_AH_CHECKSUM))
            return fail(e, CR_ASSET_VALUE_RANGE, ptag, i);
        uint32_t vbits = rd_u32(el + 8);
        if ((vbits >> 31) != 0 || (vbits & 0x7fffffffu) == 0) return fail(e, CR_ASSET_VALUE_RANGE, ptag, i);
        volume += rd_real(el + 8);
        if (!inside_bounds(ps, rd_vec3(el + 12))) return fail(e, CR_ASSET_VALUE_RANGE, ptag, i);
    }
    cr_real whole = rd_real(info + CR_AI_VOLUME);
    if (cr_abs(volume - whole) > cr_mul(whole, CR_R(0.01))) return fail(e, CR_ASSET_VALUE_RANGE, ptag, P->count);
    const uint8_t *bb = sec_ptr(ps, CR_ASEC_FRCB);
    cr_real area_max = rd_real(info + CR_AI_SURFACE_AREA) + rd_real(info + CR_AI_SURFACE_AREA);
    uint32_t pa = 0, pb2 = 0;
    for (uint32_t i = 0; i < B->count; ++i) {
        const uint8_t *el = bb + 36ull * i;
        uint32_t a = rd_u32(el), b = rd_u32(el + 4);
        if (a >= b || b >= P->count) return fail(e, CR_ASSET_INDEX_RANGE, btag, i);
        if (i > 0 && (a < pa || (a == pa && b <= pb2))) return fail(e, CR_ASSET_VALUE_RANGE, btag, i);
        pa = a, pb2 = b;
        uint32_t abits = rd_u32(el + 8);
        if ((abits >> 31) != 0 || (abits & 0x7fffffffu) == 0 || rd_real(el + 8) > area_max)
            return fail(e, CR_ASSET_VALUE_RANGE, btag, i);
        if (!inside_bounds(ps, rd_vec3(el + 12))) return fail(e, CR_ASSET_VALUE_RANGE, btag, i);
        if (cr_abs(cr_v3_len_sq(rd_vec3(el + 24)) - CR_R(1)) > CR_R(1e-2)) return fail(e, CR_ASSET_VALUE_RANGE, btag, i);
    }
    return CR_ASSET_OK;
}

/* A soft asset (docs/mass-spring.md): weights each in (0, 1] summing to 1
 * within 1e-3 (the runtime multiplies them by the body's mass, so a particle
 * of no mass, which has no inverse, cannot be described); springs between
 * two different vertices a < b, of a known kind, kinds in non-decreasing
 * order starting with a structural one (the runtime damps the structural
 * springs, which come first), and a positive rest length that is the
 * distance between its vertices (to 1e-3 of itself + 1e-6 m): the runtime
 * places the rest shape from the vertices, and a spring whose rest length
 * says otherwise would hold a deformed body. Only loops over the counts the
 * layout checked, so nothing is read past a section. */
static cr_asset_check check_soft(const parsed *ps, cr_asset_error *e) {
    const section_ref *S = &ps->sec[CR_ASEC_SPRS];
    if (S->count == 0) return CR_ASSET_OK;
    uint32_t wtag = section_tag(CR_ASEC_SPRP), stag = section_tag(CR_ASEC_SPRS);
    cr_asset_check c;
    if ((c = check_floats(ps, CR_ASEC_SPRP, 1, 4, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SPRS, 1, 16, 12, e)) != CR_ASSET_OK) return c;
    const uint8_t *wp = sec_ptr(ps, CR_ASEC_SPRP);
    cr_real sum = 0;
    for (uint32_t i = 0; i < ps->vertex_count; ++i) {
        uint32_t bits = rd_u32(wp + 4ull * i);
        cr_real wi = rd_real(wp + 4ull * i);
        if ((bits >> 31) != 0 || !(wi > 0) || wi > CR_R(1)) return fail(e, CR_ASSET_VALUE_RANGE, wtag, i);
        sum += wi;
    }
    if (cr_abs(sum - CR_R(1)) > CR_R(1e-3)) return fail(e, CR_ASSET_VALUE_RANGE, wtag, ps->vertex_count);
    const uint8_t *sp = sec_ptr(ps, CR_ASEC_SPRS), *pos = sec_ptr(ps, CR_ASEC_VPOS);
    uint32_t prev_kind = 0;
    for (uint32_t i = 0; i < S->count; ++i) {
        const uint8_t *el = sp + 16ull * i;
        uint32_t a = rd_u32(el), b = rd_u32(el + 4), kind = rd_u32(el + 8);
        if (a >= b || b >= ps->vertex_count) return fail(e, CR_ASSET_INDEX_RANGE, stag, i);
        if (kind > CR_ASSET_SPRING_INTERNAL || kind < prev_kind || (i == 0 && kind != CR_ASSET_SPRING_STRUCTURAL))
            return fail(e, CR_ASSET_VALUE_RANGE, stag, i);
        prev_kind = kind;
        cr_real rest = rd_real(el + 12);
        /* |d| as m |d / m| (m the largest component): no square of a
         * coordinate, which could pass Q32.32 for coordinates near 2^20 */
        cr_vec3 d = cr_v3_sub(rd_vec3(pos + 12ull * b), rd_vec3(pos + 12ull * a));
        cr_real m = cr_max(cr_abs(d.x), cr_max(cr_abs(d.y), cr_abs(d.z)));
        cr_real len = m > 0 ? cr_mul(m, cr_v3_len(cr_v3(cr_div(d.x, m), cr_div(d.y, m), cr_div(d.z, m)))) : 0;
        if (!(rest > 0) || !(len > 0) || cr_abs(rest - len) > cr_mul(rest, CR_R(1e-3)) + CR_R(1e-6))
            return fail(e, CR_ASSET_VALUE_RANGE, stag, i);
    }
    return CR_ASSET_OK;
}

static cr_asset_check check_payload(const parsed *ps, cr_asset_error *e) {
    cr_asset_check c;
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    uint32_t info_tag = section_tag(CR_ASEC_INFO);

    /* INFO: reserved words, topology flag, every float */
    if (rd_u32(info + CR_AI_RESERVED0) != 0) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_RESERVED0);
    for (uint32_t i = CR_AI_RESERVED1; i < CR_AI_SIZE; ++i)
        if (info[i] != 0) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, i);
    bool closed = rd_u32(info + CR_AI_BOUNDARY_EDGES) == 0 && rd_u32(info + CR_AI_NONMANIFOLD_EDGES) == 0;
    if (closed != ((ps->flags & CR_ASSET_FLAG_CLOSED) != 0)) return fail(e, CR_ASSET_BAD_HEADER, 0, CR_AH_FLAGS);
    if (rd_u32(info + CR_AI_COMPONENTS) < 1 || rd_u32(info + CR_AI_COMPONENTS) > ps->triangle_count)
        return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_COMPONENTS);
    for (uint32_t off = CR_AI_SDF_ORIGIN; off < CR_AI_RESERVED1; off += 4) {
        if (off == CR_AI_GEODESIC_PATCHES) continue; /* the one integer among the floats */
        uint32_t bits = rd_u32(info + off);
        if (!float_bits_finite(bits)) return fail(e, CR_ASSET_NOT_FINITE, info_tag, off);
        if (!float_bits_ok(bits)) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, off);
    }
    /* quantities that must be positive or non-negative */
    static const uint32_t positive[] = {CR_AI_SDF_CELL, CR_AI_VOLUME};
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; ++i) {
        uint32_t bits = rd_u32(info + positive[i]);
        if ((bits >> 31) != 0 || (bits & 0x7fffffffu) == 0) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, positive[i]);
    }
    static const uint32_t non_negative[] = {CR_AI_INERTIA, CR_AI_INERTIA + 4, CR_AI_INERTIA + 8, CR_AI_SURFACE_AREA,
                                            CR_AI_BOUND_RADIUS, CR_AI_GEODESIC_RADIUS, CR_AI_GEODESIC_PATCH_RADIUS};
    for (size_t i = 0; i < sizeof non_negative / sizeof non_negative[0]; ++i)
        if (float_bits_negative(rd_u32(info + non_negative[i])))
            return fail(e, CR_ASSET_VALUE_RANGE, info_tag, non_negative[i]);
    if (ps->patch_count == 0 && rd_u32(info + CR_AI_GEODESIC_PATCH_RADIUS) != 0)
        return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_GEODESIC_PATCH_RADIUS);
    /* the cell must be large enough that 1/cell and the grid extent stay in range */
    cr_real cell = rd_real(info + CR_AI_SDF_CELL);
    if (cell < CR_R(1.0 / 65536.0)) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_SDF_CELL);
    for (int k = 0; k < 3; ++k) {
        cr_real extent = cr_mul(cr_from_int((int32_t)ps->dims[k] - 1), cell);
        cr_real end = rd_real(info + CR_AI_SDF_ORIGIN + 4u * (uint32_t)k) + extent;
        if (extent > CR_R(1048576.0) || end > CR_R(1048576.0)) return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_SDF_CELL);
    }
    if (!quat_is_unit(rd_quat(info + CR_AI_MESH_TO_BODY_Q))) return fail(e, CR_ASSET_BAD_QUATERNION, info_tag, CR_AI_MESH_TO_BODY_Q);
    for (uint32_t k = 0; k < 3; ++k)
        if (rd_real(info + CR_AI_BOUNDS_MIN + 4 * k) > rd_real(info + CR_AI_BOUNDS_MAX + 4 * k))
            return fail(e, CR_ASSET_VALUE_RANGE, info_tag, CR_AI_BOUNDS_MIN + 4 * k);

    /* floats of every real-valued section */
    if ((c = check_floats(ps, CR_ASEC_VPOS, 3, 12, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_VNRM, 3, 12, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SMPP, 3, 12, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SDFV, 1, 4, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_GEOD, 1, 4, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_BONE, 7, 32, 4, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SKNW, 4, 16, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_EXMP, 7, 28, 0, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SQSK, 11, 48, 4, e)) != CR_ASSET_OK) return c;
    if ((c = check_floats(ps, CR_ASEC_SQIV, 1, 4, 0, e)) != CR_ASSET_OK) return c;
    /* a skeleton the runtime can evaluate: known types, radii and weights in range, c above 0 */
    const uint8_t *sq = sec_ptr(ps, CR_ASEC_SQSK);
    for (uint32_t i = 0; i < ps->sec[CR_ASEC_SQSK].count; ++i) {
        const uint8_t *q = sq + 48ull * i;
        cr_real radius = rd_real(q + 40), weight = rd_real(q + 44);
        if ((rd_u32(q) & 0xffu) > 2u || !(radius > CR_R(1e-4) && radius < CR_R(1e4)) || !(weight > 0 && weight < CR_R(1e4)))
            return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_SQSK), i);
    }
    /* the blending graph in the type words: groups below 16, one collide mask per group, symmetric, not its own,
     * naming groups that have primitives (the element named is the first that breaks it) */
    {
        uint32_t present = 0, mask[16] = {0}, n = ps->sec[CR_ASEC_SQSK].count;
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t t = rd_u32(sq + 48ull * i), g = (t >> 8) & 0xffu;
            if (g < 16 && !((present >> g) & 1u)) present |= 1u << g, mask[g] = t >> 16;
        }
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t t = rd_u32(sq + 48ull * i), g = (t >> 8) & 0xffu, m = t >> 16;
            bool ok = g < 16 && m == mask[g] && !((m >> g) & 1u) && (m & ~present) == 0;
            for (uint32_t h = 0; ok && h < 16; ++h)
                if ((m >> h) & 1u) ok = (mask[h] >> g) & 1u;
            if (!ok) return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_SQSK), i);
        }
    }
    if (ps->sec[CR_ASEC_SQIV].count == 1 && !(rd_real(sec_ptr(ps, CR_ASEC_SQIV)) > 0))
        return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_SQIV), 0);

    /* normals are unit length (a renderer and the solver both assume it) */
    const uint8_t *nrm = sec_ptr(ps, CR_ASEC_VNRM);
    for (uint32_t i = 0; i < ps->vertex_count; ++i) {
        cr_real n2 = cr_v3_len_sq(rd_vec3(nrm + 12ull * i));
        if (cr_abs(n2 - CR_R(1)) > CR_R(1e-2)) return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_VNRM), i);
    }

    if ((c = check_plausible(ps, e)) != CR_ASSET_OK) return c;

    /* triangles and samples index real vertices; samples equal their vertex */
    const uint8_t *tri = sec_ptr(ps, CR_ASEC_TRIS);
    for (uint64_t i = 0; i < 3ull * ps->triangle_count; ++i)
        if (rd_u32(tri + 4 * i) >= ps->vertex_count) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(CR_ASEC_TRIS), (uint32_t)(i / 3));
    const uint8_t *smv = sec_ptr(ps, CR_ASEC_SMPV), *smp = sec_ptr(ps, CR_ASEC_SMPP), *pos = sec_ptr(ps, CR_ASEC_VPOS);
    for (uint32_t i = 0; i < ps->sample_count; ++i) {
        uint32_t v = rd_u32(smv + 4ull * i);
        if (v >= ps->vertex_count) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(CR_ASEC_SMPV), i);
        if (memcmp(smp + 12ull * i, pos + 12ull * v, 12) != 0) return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_SMPP), i);
    }

    /* bending's segmentation: every owner a bone of the asset */
    const cr_asset_section_id bnd[2] = {CR_ASEC_BNDT, CR_ASEC_BNDN};
    for (int s = 0; s < 2; ++s) {
        const uint8_t *o = sec_ptr(ps, bnd[s]);
        for (uint32_t i = 0; i < ps->sec[bnd[s]].count; ++i)
            if (o[i] >= ps->bone_count) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(bnd[s]), i);
    }

    if ((c = check_bend_moments(ps, e)) != CR_ASSET_OK) return c;

    /* neighbourhoods */
    if ((c = check_csr(ps, CR_ASEC_ADJS, CR_ASEC_ADJI, true, ps->vertex_count, true, e)) != CR_ASSET_OK) return c;
    if ((c = check_csr(ps, CR_ASEC_GEOS, CR_ASEC_GEOI, false, ps->geodesic_lists, ps->patch_count == 0, e)) != CR_ASSET_OK)
        return c;
    {
        /* each vertex's patch names one of the lists */
        const uint8_t *gp = sec_ptr(ps, CR_ASEC_GPAT);
        for (uint32_t v = 0; v < ps->sec[CR_ASEC_GPAT].count; ++v)
            if (rd_u32(gp + 4ull * v) >= ps->patch_count) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(CR_ASEC_GPAT), v);
    }
    {
        /* distances: non-negative, at most the radius, non-decreasing per list.
         * For non-negative floats the bit patterns order like the values. */
        const uint8_t *st = sec_ptr(ps, CR_ASEC_GEOS), *gd = sec_ptr(ps, CR_ASEC_GEOD);
        uint32_t radius = rd_u32(info + CR_AI_GEODESIC_RADIUS);
        for (uint32_t v = 0; v < ps->geodesic_lists; ++v) {
            uint32_t s0 = rd_u32(st + 4ull * v), s1 = rd_u32(st + 4ull * (v + 1)), prev = 0;
            for (uint32_t k = s0; k < s1; ++k) {
                uint32_t d = rd_u32(gd + 4ull * k);
                if ((d >> 31) != 0 || d > radius || d < prev) return fail(e, CR_ASSET_VALUE_RANGE, section_tag(CR_ASEC_GEOD), k);
                prev = d;
            }
        }
    }

    /* skeleton */
    const uint8_t *bone = sec_ptr(ps, CR_ASEC_BONE);
    for (uint32_t i = 0; i < ps->bone_count; ++i) {
        int32_t parent = (int32_t)rd_u32(bone + 32ull * i);
        if (parent < -1 || parent >= (int32_t)i) return fail(e, CR_ASSET_BAD_BONE_PARENT, section_tag(CR_ASEC_BONE), i);
        if (!quat_is_unit(rd_quat(bone + 32ull * i + 16))) return fail(e, CR_ASSET_BAD_QUATERNION, section_tag(CR_ASEC_BONE), i);
    }
    const uint8_t *ski = sec_ptr(ps, CR_ASEC_SKNI), *skw = sec_ptr(ps, CR_ASEC_SKNW);
    for (uint32_t v = 0; v < ps->sec[CR_ASEC_SKNI].count; ++v) {
        cr_real sum = 0;
        for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
            uint32_t bits = rd_u32(skw + 16ull * v + 4 * k);
            if (ski[4ull * v + k] >= ps->bone_count) return fail(e, CR_ASSET_INDEX_RANGE, section_tag(CR_ASEC_SKNI), v);
            if (float_bits_negative(bits) || rd_real(skw + 16ull * v + 4 * k) > CR_R(1))
                return fail(e, CR_ASSET_BAD_WEIGHTS, section_tag(CR_ASEC_SKNW), v);
            sum += rd_real(skw + 16ull * v + 4 * k);
        }
        if (cr_abs(sum - CR_R(1)) > CR_R(1e-3)) return fail(e, CR_ASSET_BAD_WEIGHTS, section_tag(CR_ASEC_SKNW), v);
    }
    const uint8_t *ex = sec_ptr(ps, CR_ASEC_EXMP);
    for (uint32_t i = 0; i < ps->sec[CR_ASEC_EXMP].count; ++i)
        if (!quat_is_unit(rd_quat(ex + 28ull * i + 12))) return fail(e, CR_ASSET_BAD_QUATERNION, section_tag(CR_ASEC_EXMP), i);
    if ((c = check_soft(ps, e)) != CR_ASSET_OK) return c;
    return check_fracture(ps, e);
}

/* ---- phase 2: the view ------------------------------------------------------ */

/* Where each array of the view comes from: aliasing the file where the bytes
 * already have the view's representation, a copy in the block otherwise. */
typedef struct plan_t {
    bool alias_u32;   /* uint32 arrays used in place */
    bool alias_real;  /* cr_real arrays (float32 in the file) used in place */
    uint64_t bytes;   /* block bytes needed */
} plan_t;

static uint64_t round16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

/* Block bytes the view's copy of one section takes (0 where the view uses
 * the file's bytes in place); plan() is their sum, so the resident report
 * and the load agree byte for byte. */
static uint64_t section_block_bytes(const parsed *ps, const plan_t *p, cr_asset_section_id id) {
    const uint64_t real = p->alias_real ? 0 : 1, u32 = p->alias_u32 ? 0 : 1;
    switch (id) {
    case CR_ASEC_VPOS:
    case CR_ASEC_VNRM: return real * round16((uint64_t)ps->vertex_count * sizeof(cr_vec3));
    case CR_ASEC_SMPP: return real * round16((uint64_t)ps->sample_count * sizeof(cr_vec3));
    case CR_ASEC_SDFV: return real * round16((uint64_t)ps->node_count * sizeof(cr_real));
    case CR_ASEC_GEOD: return real * round16((uint64_t)ps->geodesic_count * sizeof(cr_real));
    case CR_ASEC_SKNW: return real * round16((uint64_t)ps->sec[CR_ASEC_SKNW].count * 4u * sizeof(cr_real));
    case CR_ASEC_SPRP: return real * round16((uint64_t)ps->sec[CR_ASEC_SPRP].count * sizeof(cr_real));
    case CR_ASEC_TRIS: return u32 * round16((uint64_t)ps->triangle_count * 12u);
    case CR_ASEC_SMPV: return u32 * round16((uint64_t)ps->sample_count * 4u);
    case CR_ASEC_ADJS: return u32 * round16((uint64_t)ps->sec[CR_ASEC_ADJS].count * 4u);
    case CR_ASEC_GEOS: return u32 * round16((uint64_t)ps->sec[CR_ASEC_GEOS].count * 4u);
    case CR_ASEC_GPAT: return u32 * round16((uint64_t)ps->sec[CR_ASEC_GPAT].count * 4u);
    case CR_ASEC_ADJI: return u32 * round16((uint64_t)ps->adjacency_count * 4u);
    case CR_ASEC_GEOI: return u32 * round16((uint64_t)ps->geodesic_count * 4u);
    case CR_ASEC_BONE: return round16((uint64_t)ps->bone_count * sizeof(cr_asset_bone));
    case CR_ASEC_EXMP: return round16((uint64_t)ps->sec[CR_ASEC_EXMP].count * sizeof(cr_transform));
    case CR_ASEC_SQSK: return round16((uint64_t)ps->sec[CR_ASEC_SQSK].count * sizeof(cr_squash_primitive));
    case CR_ASEC_FRCP: return round16((uint64_t)ps->sec[CR_ASEC_FRCP].count * sizeof(cr_asset_piece));
    case CR_ASEC_FRCB: return round16((uint64_t)ps->sec[CR_ASEC_FRCB].count * sizeof(cr_asset_bond));
    case CR_ASEC_SPRS: return round16((uint64_t)ps->sec[CR_ASEC_SPRS].count * sizeof(cr_asset_spring));
    case CR_ASEC_BNDM: return round16((uint64_t)ps->sec[CR_ASEC_BNDM].count * sizeof(cr_asset_bone_moments));
    default: return 0;
    }
}

static plan_t plan(const parsed *ps) {
    plan_t p;
    p.alias_u32 = host_is_little_endian() && ((uintptr_t)ps->b & 3u) == 0;
    p.alias_real = p.alias_u32 && !CR_FIXED && sizeof(cr_real) == 4 && sizeof(cr_vec3) == 12;
    uint64_t n = 16; /* never 0: 0 means "not an asset" */
    for (int id = 0; id < CR_ASSET_SECTION_COUNT; ++id) n += section_block_bytes(ps, &p, (cr_asset_section_id)id);
    p.bytes = n;
    return p;
}

/* what each section holds and which parts of the runtime read it (grep of
 * runtime/src: an asset for a body that never gets a model can leave that
 * model's sections empty) */
static const char *section_use(cr_asset_section_id id, const char **what) {
    /* the strings inline, so the table is read-only data without relocations */
    static const struct {
        char what[32], readers[64];
    } use[CR_ASSET_SECTION_COUNT] = {
        [CR_ASEC_INFO] = {"counts and scalars", "load"},
        [CR_ASEC_VPOS] = {"vertex positions", "collision, queries, drawing, every surface model"},
        [CR_ASEC_VNRM] = {"vertex normals", "drawing, every surface model"},
        [CR_ASEC_TRIS] = {"triangles", "queries, drawing, mass, every surface model"},
        [CR_ASEC_SMPV] = {"sample vertex indices", "collision, surface models"},
        [CR_ASEC_SMPP] = {"collision sample points", "collision"},
        [CR_ASEC_SDFV] = {"signed distance grid", "collision, queries, surface models"},
        [CR_ASEC_ADJS] = {"one-ring starts", "soft bodies"},
        [CR_ASEC_ADJI] = {"one-ring neighbours", "soft bodies"},
        [CR_ASEC_GEOS] = {"geodesic list starts", "example plasticity"},
        [CR_ASEC_GEOI] = {"geodesic neighbours", "example plasticity"},
        [CR_ASEC_GEOD] = {"geodesic distances", "example plasticity"},
        [CR_ASEC_BONE] = {"bones", "bending, example plasticity"},
        [CR_ASEC_SKNI] = {"skin bone indices", "bending, example plasticity"},
        [CR_ASEC_SKNW] = {"skin weights", "bending, example plasticity"},
        [CR_ASEC_EXMP] = {"example poses", "example plasticity"},
        [CR_ASEC_SQSK] = {"squash skeleton", "squash"},
        [CR_ASEC_SQIV] = {"squash isovalue", "squash"},
        [CR_ASEC_FRCP] = {"fracture pieces", "fracture"},
        [CR_ASEC_FRCB] = {"fracture bonds", "fracture"},
        [CR_ASEC_FRCA] = {"fracture pieces' assets", "fracture (each piece loaded as its own asset)"},
        [CR_ASEC_SPRP] = {"particle masses", "soft bodies"},
        [CR_ASEC_SPRS] = {"springs", "soft bodies"},
        [CR_ASEC_GPAT] = {"geodesic patches", "example plasticity"},
        [CR_ASEC_BNDT] = {"bending triangle bones", "bending"},
        [CR_ASEC_BNDN] = {"bending grid node bones", "bending"},
        [CR_ASEC_BNDM] = {"bending bone moments", "bending"},
    };
    *what = use[id].what;
    return use[id].readers;
}

uint32_t cr_asset_resident_report(const void *bytes, size_t size, cr_asset_section_bytes *out, uint32_t capacity) {
    parsed ps;
    if (bytes == NULL || check_layout(&ps, bytes, size, NULL) != CR_ASSET_OK) return 0;
    plan_t p = plan(&ps);
    uint32_t n = 0;
    uint64_t in_sections = 0;
    for (int id = 0; id < CR_ASSET_SECTION_COUNT; ++id) {
        uint64_t file = ps.sec[id].size, block = section_block_bytes(&ps, &p, (cr_asset_section_id)id);
        in_sections += file;
        if (file == 0 && block == 0) continue;
        if (n < capacity && out != NULL) {
            cr_asset_section_bytes *r = &out[n];
            uint32_t tag = section_tag((cr_asset_section_id)id);
            for (int k = 0; k < 4; ++k) r->tag[k] = (char)(tag >> (8 * k) & 0xffu);
            r->tag[4] = '\0';
            r->file_bytes = file, r->block_bytes = block;
            r->read_by = section_use((cr_asset_section_id)id, &r->what);
        }
        ++n;
    }
    /* the header, the section table, the padding between sections and the block's own 16 */
    if (n < capacity && out != NULL) {
        cr_asset_section_bytes *r = &out[n];
        memcpy(r->tag, "HEAD", 5);
        r->file_bytes = size - in_sections, r->block_bytes = 16;
        r->what = "header, section table, padding";
        r->read_by = "load";
    }
    return n + 1;
}

size_t cr_asset_memory_size(const void *bytes, size_t size) {
    parsed ps;
    if (check_layout(&ps, bytes, size, NULL) != CR_ASSET_OK) return 0;
    plan_t p = plan(&ps);
    return p.bytes > (uint64_t)SIZE_MAX ? 0 : (size_t)p.bytes;
}

typedef struct bump {
    uint8_t *block;
    uint64_t pos;
} bump;

static void *bump_take(bump *bp, uint64_t bytes) {
    void *p = bp->block + bp->pos;
    bp->pos += round16(bytes);
    return p;
}

static const uint32_t *u32_array(const parsed *ps, const plan_t *pl, bump *bp, cr_asset_section_id id, uint64_t n) {
    if (n == 0) return NULL;
    const uint8_t *src = sec_ptr(ps, id);
    if (pl->alias_u32) return (const uint32_t *)(const void *)src;
    uint32_t *dst = (uint32_t *)bump_take(bp, n * 4u);
    for (uint64_t i = 0; i < n; ++i) dst[i] = rd_u32(src + 4 * i);
    return dst;
}

static const cr_real *real_array(const parsed *ps, const plan_t *pl, bump *bp, cr_asset_section_id id, uint64_t n) {
    if (n == 0) return NULL;
    const uint8_t *src = sec_ptr(ps, id);
    if (pl->alias_real) return (const cr_real *)(const void *)src;
    cr_real *dst = (cr_real *)bump_take(bp, n * sizeof(cr_real));
    for (uint64_t i = 0; i < n; ++i) dst[i] = rd_real(src + 4 * i);
    return dst;
}

static const cr_vec3 *vec3_array(const parsed *ps, const plan_t *pl, bump *bp, cr_asset_section_id id, uint64_t n) {
    if (n == 0) return NULL;
    const uint8_t *src = sec_ptr(ps, id);
    if (pl->alias_real) return (const cr_vec3 *)(const void *)src;
    cr_vec3 *dst = (cr_vec3 *)bump_take(bp, n * sizeof(cr_vec3));
    for (uint64_t i = 0; i < n; ++i) dst[i] = rd_vec3(src + 12 * i);
    return dst;
}

static void build_view(const parsed *ps, const plan_t *pl, uint8_t *block, cr_asset *a) {
    bump bp = {block, 0};
    const uint8_t *info = sec_ptr(ps, CR_ASEC_INFO);
    memset(a, 0, sizeof *a);
    a->vertex_count = ps->vertex_count;
    a->triangle_count = ps->triangle_count;
    a->positions = vec3_array(ps, pl, &bp, CR_ASEC_VPOS, ps->vertex_count);
    a->normals = vec3_array(ps, pl, &bp, CR_ASEC_VNRM, ps->vertex_count);
    a->triangles = u32_array(ps, pl, &bp, CR_ASEC_TRIS, 3ull * ps->triangle_count);

    a->sample_count = ps->sample_count;
    a->samples = vec3_array(ps, pl, &bp, CR_ASEC_SMPP, ps->sample_count);
    a->sample_vertex = u32_array(ps, pl, &bp, CR_ASEC_SMPV, ps->sample_count);

    a->sdf_origin = rd_vec3(info + CR_AI_SDF_ORIGIN);
    a->sdf_cell = rd_real(info + CR_AI_SDF_CELL);
    a->sdf_inv_cell = cr_div(CR_R(1), a->sdf_cell);
    for (int k = 0; k < 3; ++k) a->sdf_dims[k] = ps->dims[k];
    a->sdf = real_array(ps, pl, &bp, CR_ASEC_SDFV, ps->node_count);

    a->volume = rd_real(info + CR_AI_VOLUME);
    a->inertia = rd_vec3(info + CR_AI_INERTIA);
    a->mesh_to_body.p = rd_vec3(info + CR_AI_MESH_TO_BODY_P);
    a->mesh_to_body.q = rd_quat(info + CR_AI_MESH_TO_BODY_Q);
    a->surface_area = rd_real(info + CR_AI_SURFACE_AREA);
    a->bounds_min = rd_vec3(info + CR_AI_BOUNDS_MIN);
    a->bounds_max = rd_vec3(info + CR_AI_BOUNDS_MAX);
    a->bound_radius = rd_real(info + CR_AI_BOUND_RADIUS);

    a->adjacency_start = u32_array(ps, pl, &bp, CR_ASEC_ADJS, ps->sec[CR_ASEC_ADJS].count);
    a->adjacency = u32_array(ps, pl, &bp, CR_ASEC_ADJI, ps->adjacency_count);
    a->geodesic_count = ps->geodesic_count;
    a->geodesic_radius = rd_real(info + CR_AI_GEODESIC_RADIUS);
    a->geodesic_start = u32_array(ps, pl, &bp, CR_ASEC_GEOS, ps->sec[CR_ASEC_GEOS].count);
    a->geodesic_patch_count = ps->patch_count;
    a->geodesic_patch_radius = rd_real(info + CR_AI_GEODESIC_PATCH_RADIUS);
    a->geodesic_patch = u32_array(ps, pl, &bp, CR_ASEC_GPAT, ps->sec[CR_ASEC_GPAT].count);
    a->geodesic_vertex = u32_array(ps, pl, &bp, CR_ASEC_GEOI, ps->geodesic_count);
    a->geodesic_distance = real_array(ps, pl, &bp, CR_ASEC_GEOD, ps->geodesic_count);

    a->bone_count = ps->bone_count;
    if (ps->bone_count) {
        cr_asset_bone *bones = (cr_asset_bone *)bump_take(&bp, (uint64_t)ps->bone_count * sizeof(cr_asset_bone));
        const uint8_t *src = sec_ptr(ps, CR_ASEC_BONE);
        for (uint32_t i = 0; i < ps->bone_count; ++i) {
            bones[i].parent = (int32_t)rd_u32(src + 32ull * i);
            bones[i].rest.p = rd_vec3(src + 32ull * i + 4);
            bones[i].rest.q = rd_quat(src + 32ull * i + 16);
        }
        a->bones = bones;
        a->skin_bone = sec_ptr(ps, CR_ASEC_SKNI);
        a->skin_weight = real_array(ps, pl, &bp, CR_ASEC_SKNW, 4ull * ps->vertex_count);
        a->example_count = ps->example_count;
        uint32_t n = ps->example_count * ps->bone_count;
        cr_transform *ex = (cr_transform *)bump_take(&bp, (uint64_t)n * sizeof(cr_transform));
        const uint8_t *es = sec_ptr(ps, CR_ASEC_EXMP);
        for (uint32_t i = 0; i < n; ++i) {
            ex[i].p = rd_vec3(es + 28ull * i);
            ex[i].q = rd_quat(es + 28ull * i + 12);
        }
        a->examples = ex;
    }

    if (ps->sec[CR_ASEC_SQSK].count > 0) {
        uint32_t n = ps->sec[CR_ASEC_SQSK].count;
        cr_squash_primitive *pr = (cr_squash_primitive *)bump_take(&bp, (uint64_t)n * sizeof(cr_squash_primitive));
        const uint8_t *src = sec_ptr(ps, CR_ASEC_SQSK);
        for (uint32_t i = 0; i < n; ++i) {
            const uint8_t *q = src + 48ull * i;
            memset(&pr[i], 0, sizeof pr[i]);
            pr[i].type = rd_u32(q) & 0xffu;
            pr[i].group = (uint16_t)((rd_u32(q) >> 8) & 0xffu), pr[i].collide = (uint16_t)(rd_u32(q) >> 16);
            pr[i].a = rd_vec3(q + 4), pr[i].b = rd_vec3(q + 16), pr[i].e = rd_vec3(q + 28);
            pr[i].radius = rd_real(q + 40), pr[i].weight = rd_real(q + 44);
        }
        a->squash_primitive_count = n;
        a->squash_primitives = pr;
        a->squash_isovalue = rd_real(sec_ptr(ps, CR_ASEC_SQIV));
    }
    a->piece_count = ps->sec[CR_ASEC_FRCP].count;
    if (a->piece_count) {
        cr_asset_piece *pieces = (cr_asset_piece *)bump_take(&bp, (uint64_t)a->piece_count * sizeof(cr_asset_piece));
        const uint8_t *src = sec_ptr(ps, CR_ASEC_FRCP);
        for (uint32_t i = 0; i < a->piece_count; ++i) {
            pieces[i].offset = rd_u32(src + 24ull * i);
            pieces[i].size = rd_u32(src + 24ull * i + 4);
            pieces[i].volume = rd_real(src + 24ull * i + 8);
            pieces[i].centroid = rd_vec3(src + 24ull * i + 12);
        }
        a->pieces = pieces;
        a->bond_count = ps->sec[CR_ASEC_FRCB].count;
        cr_asset_bond *bonds = (cr_asset_bond *)bump_take(&bp, (uint64_t)a->bond_count * sizeof(cr_asset_bond));
        const uint8_t *bs = sec_ptr(ps, CR_ASEC_FRCB);
        for (uint32_t i = 0; i < a->bond_count; ++i) {
            bonds[i].a = rd_u32(bs + 36ull * i);
            bonds[i].b = rd_u32(bs + 36ull * i + 4);
            bonds[i].area = rd_real(bs + 36ull * i + 8);
            bonds[i].centroid = rd_vec3(bs + 36ull * i + 12);
            bonds[i].normal = rd_vec3(bs + 36ull * i + 24);
        }
        a->bonds = a->bond_count ? bonds : NULL;
    }

    a->bend_triangle_bone = ps->sec[CR_ASEC_BNDT].count ? sec_ptr(ps, CR_ASEC_BNDT) : NULL;
    a->bend_node_bone = ps->sec[CR_ASEC_BNDN].count ? sec_ptr(ps, CR_ASEC_BNDN) : NULL;
    if (ps->sec[CR_ASEC_BNDM].count) {
        cr_asset_bone_moments *bm =
            (cr_asset_bone_moments *)bump_take(&bp, (uint64_t)ps->sec[CR_ASEC_BNDM].count * sizeof(cr_asset_bone_moments));
        const uint8_t *src = sec_ptr(ps, CR_ASEC_BNDM);
        for (uint32_t i = 0; i < ps->sec[CR_ASEC_BNDM].count; ++i) {
            const uint8_t *el = src + 80ull * i;
            bm[i].count = (int64_t)rd_u64(el);
            for (int k = 0; k < 3; ++k) {
                bm[i].sum[k] = (int64_t)rd_u64(el + 8 + 8 * k);
                bm[i].sum_sq[k] = (int64_t)rd_u64(el + 32 + 8 * k);
                bm[i].sum_cross[k] = (int64_t)rd_u64(el + 56 + 8 * k);
            }
        }
        a->bend_moments = bm;
    }
    a->soft_spring_count = ps->sec[CR_ASEC_SPRS].count;
    if (a->soft_spring_count) {
        cr_asset_spring *sp = (cr_asset_spring *)bump_take(&bp, (uint64_t)a->soft_spring_count * sizeof(cr_asset_spring));
        const uint8_t *src = sec_ptr(ps, CR_ASEC_SPRS);
        for (uint32_t i = 0; i < a->soft_spring_count; ++i) {
            sp[i].a = rd_u32(src + 16ull * i);
            sp[i].b = rd_u32(src + 16ull * i + 4);
            sp[i].kind = rd_u32(src + 16ull * i + 8);
            sp[i].rest = rd_real(src + 16ull * i + 12);
        }
        a->soft_springs = sp;
        a->soft_mass_weights = real_array(ps, pl, &bp, CR_ASEC_SPRP, ps->vertex_count);
    }

    a->topology.boundary_edges = rd_u32(info + CR_AI_BOUNDARY_EDGES);
    a->topology.nonmanifold_edges = rd_u32(info + CR_AI_NONMANIFOLD_EDGES);
    a->topology.components = rd_u32(info + CR_AI_COMPONENTS);
    a->topology.welded_vertices = rd_u32(info + CR_AI_WELDED_VERTICES);
    a->topology.dropped_triangles = rd_u32(info + CR_AI_DROPPED_TRIANGLES);
    a->topology.closed = (ps->flags & CR_ASSET_FLAG_CLOSED) != 0;
    a->checksum = rd_u64(ps->b + CR_AH_CHECKSUM);
}

cr_status cr_asset_load(const void *bytes, size_t size, void *block, size_t block_size, cr_asset *out, cr_asset_error *err) {
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->check = CR_ASSET_OK;
    }
    if (out == NULL || bytes == NULL) {
        fail(err, CR_ASSET_NULL_ARGUMENT, 0, 0);
        return CR_ERR_NULL_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    parsed ps;
    if (check_layout(&ps, bytes, size, err) != CR_ASSET_OK) return CR_ERR_BAD_ASSET;
    /* The checksum comes after the header checks (it needs a trusted file
     * size) but before anything in the payload is interpreted. */
    const uint8_t *b = (const uint8_t *)bytes;
    if (cr_asset_checksum(b + 16, size - 16) != rd_u64(b + CR_AH_CHECKSUM)) {
        fail(err, CR_ASSET_BAD_CHECKSUM, 0, CR_AH_CHECKSUM);
        return CR_ERR_BAD_ASSET;
    }
    if (check_payload(&ps, err) != CR_ASSET_OK) return CR_ERR_BAD_ASSET;
    plan_t pl = plan(&ps);
    if (block == NULL) {
        fail(err, CR_ASSET_NULL_ARGUMENT, 0, 0);
        return CR_ERR_NULL_ARGUMENT;
    }
    if (((uintptr_t)block & (CR_BLOCK_ALIGN - 1)) != 0) {
        fail(err, CR_ASSET_BLOCK_MISALIGNED, 0, 0);
        return CR_ERR_BLOCK_MISALIGNED;
    }
    if ((uint64_t)block_size < pl.bytes) {
        fail(err, CR_ASSET_BLOCK_TOO_SMALL, 0, 0);
        return CR_ERR_BLOCK_TOO_SMALL;
    }
    build_view(&ps, &pl, (uint8_t *)block, out);
    return CR_OK;
}

cr_status cr_asset_piece_bytes(const cr_asset *a, const void *bytes, size_t size, uint32_t i, const void **piece_bytes,
                               size_t *piece_size) {
    if (a == NULL || bytes == NULL || piece_bytes == NULL || piece_size == NULL) return CR_ERR_NULL_ARGUMENT;
    if (i >= a->piece_count) return CR_ERR_ARGUMENT_RANGE;
    /* the loader checked the range against the file it was given; a host
     * that passes other bytes is caught here, not read past */
    if ((uint64_t)a->pieces[i].offset + a->pieces[i].size > (uint64_t)size) return CR_ERR_ARGUMENT_RANGE;
    *piece_bytes = (const uint8_t *)bytes + a->pieces[i].offset;
    *piece_size = a->pieces[i].size;
    return CR_OK;
}

/* The same arithmetic as the scene files' "as modelled" placement
 * (tools/scene_asset.c), so a game and a scene place a mesh on the same bits. */
cr_transform cr_asset_body_pose(const cr_asset *asset, cr_transform mesh_in_level) {
    if (asset == NULL) return mesh_in_level;
    cr_transform t;
    t.q = cr_quat_normalize(cr_quat_mul(mesh_in_level.q, cr_quat_conj(asset->mesh_to_body.q)));
    t.p = cr_v3_sub(mesh_in_level.p, cr_quat_rotate(t.q, asset->mesh_to_body.p));
    return t;
}
