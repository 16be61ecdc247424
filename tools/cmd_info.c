/* cmd_info.c — `crumple info FILE.crb [--json]`: what is in a cooked asset.
 *
 * The file goes through the runtime's own loader, so `info` doubles as the
 * validator: a damaged file is reported with the check that failed (section
 * and element) and a non-zero exit status, exactly as a game would see it.
 */
#include "cli.h"
#include "asset_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cr_cli_asset_open(const char *path, uint8_t **bytes, void **block, cr_asset *asset) {
    size_t size;
    *bytes = NULL;
    *block = NULL;
    crp_status ps = crp_read_file(path, bytes, &size);
    if (ps != CRP_OK) {
        fprintf(stderr, "%s: %s\n", path, crp_status_message(ps));
        return -1;
    }
    size_t need = cr_asset_memory_size(*bytes, size);
    size_t alloc = need ? (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN : CR_BLOCK_ALIGN;
    *block = aligned_alloc(CR_BLOCK_ALIGN, alloc);
    cr_asset_error err;
    cr_status s = cr_asset_load(*bytes, size, *block, alloc, asset, &err);
    if (s != CR_OK) {
        fprintf(stderr, "%s: not a valid asset: %s (%s", path, cr_asset_check_message(err.check), cr_asset_check_name(err.check));
        if (err.section_tag[0]) fprintf(stderr, ", section %s", err.section_tag);
        fprintf(stderr, ", at %u)\n", err.index);
        return -1;
    }
    return 0;
}

static const char *sec_name(int id) {
    switch (id) {
#define CR_X_SN_(sid, a, b, c, d, sz) \
    case CR_ASEC_##sid:               \
        return #sid;
        CR_ASSET_SECTION_LIST(CR_X_SN_)
#undef CR_X_SN_
    default:
        return "?";
    }
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int cr_cmd_info(int argc, char **argv) {
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: crumple info FILE.crb [--json]\n"
                   "  Validates a cooked asset completely and prints what it holds: mesh, topology, bounds,\n"
                   "  distance grid, mass properties, neighbour lists, skeleton, sections.\n"
                   "  Every position, bound and grid origin is in the body frame: the principal frame the\n"
                   "  cooker moved the mesh into (centre of mass at the origin, axes along the principal\n"
                   "  moments). `frame mesh->body` (JSON: mesh_to_body) maps the cooked mesh's own frame\n"
                   "  into it: x_body = q x_mesh + p. Lengths in the mesh's units (metres if it was).\n"
                   "  --json           one JSON object instead of the text report\n");
            return 0;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "crumple info: unknown option '%s'\nusage: crumple info FILE.crb [--json]\n", argv[i]);
            return 2;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: crumple info FILE.crb [--json]\n");
        return 2;
    }
    uint8_t *bytes;
    void *block;
    cr_asset a;
    if (cr_cli_asset_open(path, &bytes, &block, &a) != 0) {
        crp_free(bytes);
        free(block);
        return 1;
    }
    size_t file_size = rd32(bytes + CR_AH_FILE_SIZE);
    uint32_t sec_bytes[CR_ASSET_SECTION_COUNT];
    uint32_t entries = rd32(bytes + CR_AH_SECTION_COUNT);
    for (int id = 0; id < (int)CR_ASSET_SECTION_COUNT; ++id) {
        /* the loader accepted the table, so it holds every required tag once (a missing optional one is empty) */
        sec_bytes[id] = 0;
        for (int e = 0; e < (int)entries; ++e) {
            const uint8_t *en = bytes + CR_ASSET_HEADER_SIZE + (size_t)e * CR_ASSET_ENTRY_SIZE;
            char tag[5] = {(char)en[0], (char)en[1], (char)en[2], (char)en[3], 0};
            if (strncmp(tag, sec_name(id), 4) == 0) sec_bytes[id] = rd32(en + 8);
        }
    }
    double m2b_p[3] = {cr_to_double(a.mesh_to_body.p.x), cr_to_double(a.mesh_to_body.p.y), cr_to_double(a.mesh_to_body.p.z)};
    double m2b_q[4] = {cr_to_double(a.mesh_to_body.q.x), cr_to_double(a.mesh_to_body.q.y), cr_to_double(a.mesh_to_body.q.z),
                       cr_to_double(a.mesh_to_body.q.w)};
    if (json) {
        printf("{\n  \"file\": \"%s\",\n  \"bytes\": %zu,\n  \"checksum\": \"%016llx\",\n", path, file_size,
               (unsigned long long)a.checksum);
        printf("  \"vertices\": %u,\n  \"triangles\": %u,\n  \"samples\": %u,\n", a.vertex_count, a.triangle_count, a.sample_count);
        printf("  \"topology\": {\"closed\": %s, \"boundary_edges\": %u, \"nonmanifold_edges\": %u, \"components\": %u, "
               "\"welded_vertices\": %u, \"dropped_triangles\": %u},\n",
               a.topology.closed ? "true" : "false", a.topology.boundary_edges, a.topology.nonmanifold_edges,
               a.topology.components, a.topology.welded_vertices, a.topology.dropped_triangles);
        printf("  \"bounds_min\": [%.9g, %.9g, %.9g],\n  \"bounds_max\": [%.9g, %.9g, %.9g],\n  \"bound_radius\": %.9g,\n",
               cr_to_double(a.bounds_min.x), cr_to_double(a.bounds_min.y), cr_to_double(a.bounds_min.z),
               cr_to_double(a.bounds_max.x), cr_to_double(a.bounds_max.y), cr_to_double(a.bounds_max.z),
               cr_to_double(a.bound_radius));
        printf("  \"sdf\": {\"dims\": [%u, %u, %u], \"cell\": %.9g, \"origin\": [%.9g, %.9g, %.9g]},\n", a.sdf_dims[0],
               a.sdf_dims[1], a.sdf_dims[2], cr_to_double(a.sdf_cell), cr_to_double(a.sdf_origin.x),
               cr_to_double(a.sdf_origin.y), cr_to_double(a.sdf_origin.z));
        printf("  \"mass\": {\"volume\": %.9g, \"inertia\": [%.9g, %.9g, %.9g], \"surface_area\": %.9g, "
               "\"mesh_to_body\": {\"p\": [%.9g, %.9g, %.9g], \"q\": [%.9g, %.9g, %.9g, %.9g]}},\n",
               cr_to_double(a.volume), cr_to_double(a.inertia.x), cr_to_double(a.inertia.y), cr_to_double(a.inertia.z),
               cr_to_double(a.surface_area), m2b_p[0], m2b_p[1], m2b_p[2], m2b_q[0], m2b_q[1], m2b_q[2], m2b_q[3]);
        printf("  \"adjacency_entries\": %u,\n  \"geodesic\": {\"entries\": %u, \"radius\": %.9g, \"patches\": %u, "
               "\"patch_radius\": %.9g},\n",
               a.adjacency_start ? a.adjacency_start[a.vertex_count] : 0, a.geodesic_count, cr_to_double(a.geodesic_radius), a.geodesic_patch_count,
               cr_to_double(a.geodesic_patch_radius));
        printf("  \"bones\": [");
        for (uint32_t b = 0; b < a.bone_count; ++b)
            printf("%s{\"parent\": %d, \"p\": [%.6g, %.6g, %.6g]}", b ? ", " : "", a.bones[b].parent,
                   cr_to_double(a.bones[b].rest.p.x), cr_to_double(a.bones[b].rest.p.y), cr_to_double(a.bones[b].rest.p.z));
        printf("],\n  \"examples\": %u,\n  \"section_bytes\": {", a.example_count);
        for (int id = 0; id < (int)CR_ASSET_SECTION_COUNT; ++id) printf("%s\"%s\": %u", id ? ", " : "", sec_name(id), sec_bytes[id]);
        printf("}\n}\n");
    } else {
        printf("%s: %zu bytes, checksum %016llx\n", path, file_size, (unsigned long long)a.checksum);
        printf("  mesh       %u vertices, %u triangles, %u samples\n", a.vertex_count, a.triangle_count, a.sample_count);
        printf("  topology   %s: %u boundary edges, %u non-manifold edges, %u components; %u welded, %u triangles dropped\n",
               a.topology.closed ? "closed" : "open", a.topology.boundary_edges, a.topology.nonmanifold_edges,
               a.topology.components, a.topology.welded_vertices, a.topology.dropped_triangles);
        printf("  bounds     [%.6g %.6g %.6g] .. [%.6g %.6g %.6g], radius %.6g\n", cr_to_double(a.bounds_min.x),
               cr_to_double(a.bounds_min.y), cr_to_double(a.bounds_min.z), cr_to_double(a.bounds_max.x),
               cr_to_double(a.bounds_max.y), cr_to_double(a.bounds_max.z), cr_to_double(a.bound_radius));
        printf("  sdf        %u x %u x %u nodes, cell %.6g\n", a.sdf_dims[0], a.sdf_dims[1], a.sdf_dims[2], cr_to_double(a.sdf_cell));
        printf("  mass       volume %.6g, inertia (%.6g %.6g %.6g) per unit density, area %.6g\n", cr_to_double(a.volume),
               cr_to_double(a.inertia.x), cr_to_double(a.inertia.y), cr_to_double(a.inertia.z), cr_to_double(a.surface_area));
        printf("  frame      mesh->body p (%.6g %.6g %.6g) q (%.6g %.6g %.6g %.6g)\n", m2b_p[0], m2b_p[1], m2b_p[2], m2b_q[0],
               m2b_q[1], m2b_q[2], m2b_q[3]);
        printf("  neighbours %u adjacency, %u geodesic entries (radius %.6g", a.adjacency_start ? a.adjacency_start[a.vertex_count] : 0,
               a.geodesic_count, cr_to_double(a.geodesic_radius));
        if (a.geodesic_patch_count > 0)
            printf("; one list per patch: %u patches, radius %.6g", a.geodesic_patch_count, cr_to_double(a.geodesic_patch_radius));
        printf(")\n");
        printf("  skeleton   %u bones, %u examples\n", a.bone_count, a.example_count);
        if (a.squash_primitive_count > 0)
            printf("  squishy    %u skeleton primitives, isovalue %.6g (seed 003)\n", a.squash_primitive_count, cr_to_double(a.squash_isovalue));
        if (a.soft_spring_count > 0) {
            uint32_t kind[3] = {0, 0, 0};
            for (uint32_t j = 0; j < a.soft_spring_count; ++j) kind[a.soft_springs[j].kind < 3 ? a.soft_springs[j].kind : 2]++;
            printf("  soft       %u particles, %u structural, %u bending, %u internal springs (seed 004)\n", a.vertex_count,
                   kind[0], kind[1], kind[2]);
        }
        for (uint32_t b = 0; b < a.bone_count; ++b)
            printf("    bone %-3u parent %-3d at (%.6g %.6g %.6g)\n", b, a.bones[b].parent, cr_to_double(a.bones[b].rest.p.x),
                   cr_to_double(a.bones[b].rest.p.y), cr_to_double(a.bones[b].rest.p.z));
        printf("  sections  ");
        for (int id = 0; id < (int)CR_ASSET_SECTION_COUNT; ++id) printf(" %s %u", sec_name(id), sec_bytes[id]);
        printf("\n");
    }
    crp_free(bytes);
    free(block);
    return 0;
}
