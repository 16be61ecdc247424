/* asset_format.h — byte layout of a cooked asset (.crb), shared by the runtime
 * loader (runtime/src/asset.c) and the cooker's writer (tools/cook_write.c).
 *
 * docs/asset-format.md is the prose version of this file; the two must agree.
 * All integers and floats are little-endian; floats are IEEE-754 binary32.
 *
 *   header        64 bytes at offset 0
 *   section table CR_ASSET_SECTION_COUNT entries of 16 bytes at offset 64
 *   sections      each at an offset that is a multiple of 16, no overlaps
 *
 * Notes
 *   - The checksum covers every byte after the checksum field, so any change
 *     to the header, table or payload is caught before anything is parsed.
 *   - Every section up to EXMP is always present (a skeleton-less asset has
 *     empty bone sections): fewer cases for the loader means fewer places to
 *     get wrong. The sections after EXMP (added later: SQSK, SQIV, FRCP, FRCB, FRCA,
 *     SPRP, SPRS, GPAT, BNDT, BNDN, BNDM) may be
 *     left off the end of the table when empty, so an asset that has none of
 *     them keeps the bytes it had before they existed; the header's section
 *     count says how many entries the table has.
 */
#ifndef CRUMPLE_ASSET_FORMAT_H
#define CRUMPLE_ASSET_FORMAT_H

#include <stdint.h>

#define CR_ASSET_MAGIC "CRMPASST"      /* 8 bytes, no terminator in the file */
#define CR_ASSET_VERSION 1u
#define CR_ASSET_HEADER_SIZE 64u
#define CR_ASSET_ENTRY_SIZE 16u
#define CR_ASSET_ALIGN 16u
#define CR_ASSET_ENDIAN_MARK 0x01020304u
#define CR_ASSET_MAX_FILE_SIZE 0x7fffffffu

/* header field offsets */
#define CR_AH_MAGIC 0u          /* char[8] */
#define CR_AH_CHECKSUM 8u       /* u64, cr_asset_checksum of bytes [16, file_size) */
#define CR_AH_VERSION 16u       /* u32 */
#define CR_AH_HEADER_SIZE 20u   /* u32, = 64 */
#define CR_AH_FILE_SIZE 24u     /* u32, total bytes */
#define CR_AH_SECTION_COUNT 28u /* u32, = CR_ASSET_SECTION_COUNT */
#define CR_AH_TABLE_OFFSET 32u  /* u32, = 64 */
#define CR_AH_FLAGS 36u         /* u32, CR_ASSET_FLAG_* */
#define CR_AH_ENDIAN 40u        /* u32, = CR_ASSET_ENDIAN_MARK */
#define CR_AH_RESERVED 44u      /* 20 bytes of zero */

#define CR_ASSET_FLAG_CLOSED 1u /* no boundary or non-manifold edge */
#define CR_ASSET_FLAGS_KNOWN 1u

/* section table entry: u32 tag, u32 offset, u32 size (bytes), u32 count (elements) */

/* Tags read as little-endian u32 of four ASCII characters. */
#define CR_ASSET_TAG(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

/* X(id, tag chars, element size in bytes) in canonical order (the cooker writes this order). */
#define CR_ASSET_SECTION_LIST(X)             \
    X(INFO, 'I', 'N', 'F', 'O', 192) /* 1 */ \
    X(VPOS, 'V', 'P', 'O', 'S', 12)          \
    X(VNRM, 'V', 'N', 'R', 'M', 12)          \
    X(TRIS, 'T', 'R', 'I', 'S', 12)          \
    X(SMPV, 'S', 'M', 'P', 'V', 4)           \
    X(SMPP, 'S', 'M', 'P', 'P', 12)          \
    X(SDFV, 'S', 'D', 'F', 'V', 4)           \
    X(ADJS, 'A', 'D', 'J', 'S', 4)           \
    X(ADJI, 'A', 'D', 'J', 'I', 4)           \
    X(GEOS, 'G', 'E', 'O', 'S', 4)           \
    X(GEOI, 'G', 'E', 'O', 'I', 4)           \
    X(GEOD, 'G', 'E', 'O', 'D', 4)           \
    X(BONE, 'B', 'O', 'N', 'E', 32)          \
    X(SKNI, 'S', 'K', 'N', 'I', 4)           \
    X(SKNW, 'S', 'K', 'N', 'W', 16)          \
    X(EXMP, 'E', 'X', 'M', 'P', 28)          \
    X(SQSK, 'S', 'Q', 'S', 'K', 48)          \
    X(SQIV, 'S', 'Q', 'I', 'V', 4)           \
    X(FRCP, 'F', 'R', 'C', 'P', 24)          \
    X(FRCB, 'F', 'R', 'C', 'B', 36)          \
    X(FRCA, 'F', 'R', 'C', 'A', 16)          \
    X(SPRP, 'S', 'P', 'R', 'P', 4)           \
    X(SPRS, 'S', 'P', 'R', 'S', 16)          \
    X(GPAT, 'G', 'P', 'A', 'T', 4)           \
    X(BNDT, 'B', 'N', 'D', 'T', 1)           \
    X(BNDN, 'B', 'N', 'D', 'N', 1)           \
    X(BNDM, 'B', 'N', 'D', 'M', 80)

/* Bending's segmentation (docs/bending.md; both empty, or both present in a
 * rigged asset): BNDT: u8 per triangle, the bone it belongs to; BNDN: u8 per
 * distance-grid node, the bone that owns it; every value < the bone count.
 * What cr_bend_attach would compute from the asset's own influences
 * (runtime/src/damage/sub_body.c), cooked so attaching costs no segmentation.
 * BNDM (optional, only with BNDT and BNDN: one per bone): i64 count, sum[3],
 * sum_sq[3], sum_cross[3] = 80 bytes, the integer moments of the inside
 * nodes (SDFV < 0) each bone owns in BNDN, in node indices (crumple/asset.h
 * cr_asset_bone_moments), so attaching needs no pass over the grid either. */

/// Table entries every asset has (INFO .. EXMP); the rest are optional at the end.
#define CR_ASSET_REQUIRED_SECTIONS 16u

typedef enum cr_asset_section_id {
#define CR_X_SEC_ENUM_(id, a, b, c, d, sz) CR_ASEC_##id,
    CR_ASSET_SECTION_LIST(CR_X_SEC_ENUM_)
#undef CR_X_SEC_ENUM_
    CR_ASSET_SECTION_COUNT
} cr_asset_section_id;

/* INFO section field offsets (u32 unless marked f32) */
#define CR_AI_VERTEX_COUNT 0u
#define CR_AI_TRIANGLE_COUNT 4u
#define CR_AI_SAMPLE_COUNT 8u
#define CR_AI_SDF_DIMS 12u           /* u32[3] */
#define CR_AI_ADJACENCY_COUNT 24u
#define CR_AI_GEODESIC_COUNT 28u
#define CR_AI_BONE_COUNT 32u
#define CR_AI_EXAMPLE_COUNT 36u
#define CR_AI_BOUNDARY_EDGES 40u
#define CR_AI_NONMANIFOLD_EDGES 44u
#define CR_AI_COMPONENTS 48u
#define CR_AI_WELDED_VERTICES 52u
#define CR_AI_DROPPED_TRIANGLES 56u
#define CR_AI_RESERVED0 60u          /* u32 zero */
#define CR_AI_SDF_ORIGIN 64u         /* f32[3] */
#define CR_AI_SDF_CELL 76u           /* f32 */
#define CR_AI_VOLUME 80u             /* f32 */
#define CR_AI_INERTIA 84u            /* f32[3] */
#define CR_AI_MESH_TO_BODY_P 96u     /* f32[3] */
#define CR_AI_MESH_TO_BODY_Q 108u    /* f32[4] x y z w */
#define CR_AI_SURFACE_AREA 124u      /* f32 */
#define CR_AI_BOUNDS_MIN 128u        /* f32[3] */
#define CR_AI_BOUNDS_MAX 140u        /* f32[3] */
#define CR_AI_BOUND_RADIUS 152u      /* f32 */
#define CR_AI_GEODESIC_RADIUS 156u   /* f32 */
#define CR_AI_GEODESIC_PATCHES 160u  /* u32: 0 = one geodesic list per vertex, else per patch (GPAT) */
#define CR_AI_GEODESIC_PATCH_RADIUS 164u /* f32: no vertex is farther from its patch's centre; 0 without patches */
#define CR_AI_RESERVED1 168u         /* 24 bytes of zero up to 192 */
#define CR_AI_SIZE 192u

/* BONE element: i32 parent, f32 p[3], f32 q[4] (x y z w) = 32 bytes.
 * EXMP element: f32 p[3], f32 q[4] = 28 bytes; example-major, bone-minor.
 * SKNI element: u8 bone[4]; SKNW element: f32 weight[4].
 * SQSK element (a squishy body's skeleton primitive, body frame, seed 003):
 *   u32 type (bits 0..7: 0 point, 1 segment, 2 rectangle; bits 8..15: its
 *   group of the blending graph, < 16; bits 16..31: the mask of groups its
 *   group collides with, the same on all of a group's primitives, symmetric,
 *   not its own, only groups with primitives; all 0 without groups), f32 a[3],
 *   f32 b[3], f32 e[3], f32 radius, f32 weight = 48 bytes; count 0 for a rigid asset.
 * SQIV: one f32, the isovalue c of the skin, when SQSK is not empty; else none.
 * Prescored fracture (docs/fracture.md; all three empty in other assets):
 * FRCP element: u32 offset, u32 size (the piece's own asset: file bytes
 *   [offset, offset + size) inside FRCA, 16-aligned, in piece order, not
 *   overlapping), f32 volume, f32 centroid[3] (whole body frame) = 24 bytes.
 * FRCB element: u32 a, u32 b (a < b, pairs strictly increasing), f32 area,
 *   f32 centroid[3], f32 normal[3] (unit, from a into b) = 36 bytes.
 * FRCA: the pieces' cooked assets, each a complete asset, padded to 16.
 * A soft (mass-spring) asset (docs/mass-spring.md; both empty in other assets,
 * both present in a soft one): the particles are the vertices (VPOS), so
 * SPRP: one f32 per vertex, its share of the body's mass (each in (0, 1],
 *   summing to 1);
 * SPRS element: u32 a, u32 b (a < b < vertex count), u32 kind (0 structural:
 *   an edge; 1 bending: across an edge; 2 internal: through the interior),
 *   f32 rest length (m, = |VPOS[b] - VPOS[a]|) = 16 bytes; kinds in
 *   non-decreasing order, at least one structural.
 * GPAT: u32 per vertex, its geodesic patch (< INFO's patch count) when the
 *   patch count is not 0; then GEOS has patch count + 1 entries and list p
 *   holds the vertices within the radius of patch p's centre (the centre
 *   included, at 0). Empty (or left off the table) otherwise. */

#endif
