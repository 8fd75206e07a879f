// Gmsh .msh reader (ASCII, format 2.2 and 4.1): nodes and linear tetrahedra. Other element
// types (points, lines, boundary triangles) are skipped; second-order tets keep their corners.
// Nodes no tet uses are dropped, so a mesh with geometry points or mid-edge nodes still gives
// every vertex a mass.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "geometry/tetmesh.h"

enum { GMSH_TET4 = 4, GMSH_TET10 = 11, GMSH_MAX_NODES = 50000000, GMSH_LINE = 4096 };

typedef struct gmsh_reader {
    FILE* fp;
    const char* path;
    char line[GMSH_LINE];
    int number;       ///< current line number, 1-based
    const char* cur;  ///< parse position in line
    int version;      ///< 2 or 4
    tc_error* error;
} gmsh_reader;

typedef struct tagged_node { long long tag; int index; } tagged_node;
typedef TC_ARRAY(tagged_node) tag_array;
typedef TC_ARRAY(tc_vec3) point_array;
typedef TC_ARRAY(long long) tag_list;

static tc_result fail(gmsh_reader* r, tc_result code, const char* what) {
    return tc_error_set(r->error, code, r->path, "", "line %d: %s", r->number, what);
}

// Next line with content; false at end of file (reported unless eof_ok) or on an overlong line.
static bool next_content_line(gmsh_reader* r, tc_result* rc, bool eof_ok) {
    while (fgets(r->line, sizeof r->line, r->fp)) {
        ++r->number;
        size_t n = strlen(r->line);
        if (n == sizeof r->line - 1 && r->line[n - 1] != '\n' && !feof(r->fp)) {
            *rc = fail(r, TC_RESULT_PARSE, "line longer than 4095 characters");
            return false;
        }
        r->cur = r->line;
        while (*r->cur == ' ' || *r->cur == '\t') ++r->cur;
        if (*r->cur && *r->cur != '\n' && *r->cur != '\r') return true;
    }
    if (!eof_ok) *rc = fail(r, TC_RESULT_PARSE, "unexpected end of file");
    return false;
}

static bool next_line(gmsh_reader* r, tc_result* rc) { return next_content_line(r, rc, false); }

static bool read_int(gmsh_reader* r, long long* out) {
    char* end;
    errno = 0;
    long long v = strtoll(r->cur, &end, 10);
    if (end == r->cur || errno == ERANGE || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
        return false;
    r->cur = end;
    *out = v;
    return true;
}

static bool read_real(gmsh_reader* r, double* out) {
    char* end;
    double v = strtod(r->cur, &end);
    if (end == r->cur) return false;
    r->cur = end;
    *out = v;
    return true;
}

static bool is_section(const gmsh_reader* r, const char* name) {
    size_t n = strlen(name);
    return strncmp(r->cur, name, n) == 0 && (r->cur[n] == 0 || r->cur[n] == '\n' || r->cur[n] == '\r' || r->cur[n] == ' ');
}

// Skips to the line "$End<name>" of the section just opened.
static tc_result skip_section(gmsh_reader* r) {
    char end[128] = "$End";
    size_t n = strcspn(r->cur + 1, " \t\r\n");
    if (n > sizeof end - 5) return fail(r, TC_RESULT_PARSE, "section name too long");
    memcpy(end + 4, r->cur + 1, n);
    end[4 + n] = 0;
    tc_result rc = TC_RESULT_OK;
    while (next_line(r, &rc))
        if (is_section(r, end)) return TC_RESULT_OK;
    return rc;
}

static tc_result expect_end(gmsh_reader* r, const char* end) {
    tc_result rc = TC_RESULT_OK;
    if (!next_line(r, &rc)) return rc;
    if (!is_section(r, end)) return tc_error_set(r->error, TC_RESULT_PARSE, r->path, "", "line %d: expected %s", r->number, end);
    return TC_RESULT_OK;
}

static tc_result read_format(gmsh_reader* r) {
    tc_result rc = TC_RESULT_OK;
    double version = 0;
    long long binary = 0, size = 0;
    if (!next_line(r, &rc)) return rc;
    if (!read_real(r, &version) || !read_int(r, &binary) || !read_int(r, &size))
        return fail(r, TC_RESULT_PARSE, "expected '<version> <file-type> <data-size>' in $MeshFormat");
    if (binary != 0) return fail(r, TC_RESULT_UNSUPPORTED, "binary .msh is not supported: save as ASCII");
    if (version >= 2.0 && version < 3.0) r->version = 2;
    else if (version >= 4.1 - 1e-9 && version < 5.0) r->version = 4;
    else return fail(r, TC_RESULT_UNSUPPORTED, "format version must be 2.x or 4.1 (Gmsh: Mesh.MshFileVersion)");
    return expect_end(r, "$EndMeshFormat");
}

static tc_result add_node(gmsh_reader* r, tag_array* tags, point_array* xyz, long long tag) {
    double x, y, z;
    if (!read_real(r, &x) || !read_real(r, &y) || !read_real(r, &z)) return fail(r, TC_RESULT_PARSE, "expected node coordinates x y z");
    if (!isfinite(x) || !isfinite(y) || !isfinite(z)) return fail(r, TC_RESULT_NOT_FINITE, "node coordinates must be finite");
    if (xyz->count >= GMSH_MAX_NODES) return fail(r, TC_RESULT_OUT_OF_RANGE, "more than 50,000,000 nodes");
    tagged_node t = {tag, xyz->count};
    if (!tc_array_push(tags, t) || !tc_array_push(xyz, tc_v3(x, y, z))) return fail(r, TC_RESULT_OUT_OF_MEMORY, "out of memory");
    return TC_RESULT_OK;
}

// $Nodes of format 2: a count, then "tag x y z" lines.
static tc_result read_nodes_v2(gmsh_reader* r, tag_array* tags, point_array* xyz) {
    tc_result rc = TC_RESULT_OK;
    long long n = 0, tag = 0;
    if (!next_line(r, &rc)) return rc;
    if (!read_int(r, &n) || n < 0 || n > GMSH_MAX_NODES) return fail(r, TC_RESULT_PARSE, "expected the node count");
    for (long long i = 0; i < n && rc == TC_RESULT_OK; ++i) {
        if (!next_line(r, &rc)) return rc;
        rc = read_int(r, &tag) ? add_node(r, tags, xyz, tag) : fail(r, TC_RESULT_PARSE, "expected '<tag> x y z'");
    }
    return rc ? rc : expect_end(r, "$EndNodes");
}

// $Nodes of format 4.1: blocks of "dim entity parametric count", the tags, then the coordinates.
static tc_result read_nodes_v4(gmsh_reader* r, tag_array* tags, point_array* xyz) {
    tc_result rc = TC_RESULT_OK;
    long long blocks = 0, total = 0, lo, hi;
    if (!next_line(r, &rc)) return rc;
    if (!read_int(r, &blocks) || !read_int(r, &total) || !read_int(r, &lo) || !read_int(r, &hi) || blocks < 0 || total < 0 || total > GMSH_MAX_NODES)
        return fail(r, TC_RESULT_PARSE, "expected '<blocks> <nodes> <min tag> <max tag>'");
    for (long long b = 0; b < blocks && rc == TC_RESULT_OK; ++b) {
        long long dim, entity, parametric, count;
        if (!next_line(r, &rc)) return rc;
        if (!read_int(r, &dim) || !read_int(r, &entity) || !read_int(r, &parametric) || !read_int(r, &count) || count < 0 || count > total)
            return fail(r, TC_RESULT_PARSE, "expected '<dim> <entity> <parametric> <count>' node block header");
        int first = tags->count;
        for (long long i = 0; i < count; ++i) {
            long long tag;
            if (!next_line(r, &rc)) return rc;
            if (!read_int(r, &tag)) return fail(r, TC_RESULT_PARSE, "expected a node tag");
            tagged_node t = {tag, -1};
            if (tags->count >= GMSH_MAX_NODES || !tc_array_push(tags, t)) return fail(r, TC_RESULT_OUT_OF_RANGE, "too many nodes");
        }
        for (long long i = 0; i < count && rc == TC_RESULT_OK; ++i) {
            double x, y, z;
            if (!next_line(r, &rc)) return rc;
            if (!read_real(r, &x) || !read_real(r, &y) || !read_real(r, &z)) return fail(r, TC_RESULT_PARSE, "expected node coordinates x y z");
            if (!isfinite(x) || !isfinite(y) || !isfinite(z)) return fail(r, TC_RESULT_NOT_FINITE, "node coordinates must be finite");
            tags->data[first + i].index = xyz->count;
            if (!tc_array_push(xyz, tc_v3(x, y, z))) return fail(r, TC_RESULT_OUT_OF_MEMORY, "out of memory");
        }
    }
    return rc ? rc : expect_end(r, "$EndNodes");
}

// One element's node tags (after its tag and, in format 2, its type and tags) if it is a tet.
static tc_result read_tet_nodes(gmsh_reader* r, long long type, tag_list* tets) {
    if (type != GMSH_TET4 && type != GMSH_TET10) return TC_RESULT_OK; // not a volume element we use
    if (tets->count >= 4 * 100000000) return fail(r, TC_RESULT_OUT_OF_RANGE, "more than 100,000,000 tetrahedra");
    for (int k = 0; k < 4; ++k) {
        long long tag;
        if (!read_int(r, &tag)) return fail(r, TC_RESULT_PARSE, "tetrahedron: expected 4 node tags");
        if (!tc_array_push(tets, tag)) return fail(r, TC_RESULT_OUT_OF_MEMORY, "out of memory");
    }
    return TC_RESULT_OK;
}

// $Elements of format 2: "tag type ntags tags... nodes..." lines.
static tc_result read_elements_v2(gmsh_reader* r, tag_list* tets) {
    tc_result rc = TC_RESULT_OK;
    long long n = 0;
    if (!next_line(r, &rc)) return rc;
    if (!read_int(r, &n) || n < 0) return fail(r, TC_RESULT_PARSE, "expected the element count");
    for (long long i = 0; i < n && rc == TC_RESULT_OK; ++i) {
        long long tag, type, ntags, skip;
        if (!next_line(r, &rc)) return rc;
        if (!read_int(r, &tag) || !read_int(r, &type) || !read_int(r, &ntags) || ntags < 0 || ntags > 64)
            return fail(r, TC_RESULT_PARSE, "expected '<tag> <type> <number of tags> ...'");
        for (long long k = 0; k < ntags; ++k)
            if (!read_int(r, &skip)) return fail(r, TC_RESULT_PARSE, "element tags are missing");
        rc = read_tet_nodes(r, type, tets);
    }
    return rc ? rc : expect_end(r, "$EndElements");
}

// $Elements of format 4.1: blocks of "dim entity type count", then "tag nodes..." lines.
static tc_result read_elements_v4(gmsh_reader* r, tag_list* tets) {
    tc_result rc = TC_RESULT_OK;
    long long blocks = 0, total = 0, lo, hi;
    if (!next_line(r, &rc)) return rc;
    if (!read_int(r, &blocks) || !read_int(r, &total) || !read_int(r, &lo) || !read_int(r, &hi) || blocks < 0 || total < 0)
        return fail(r, TC_RESULT_PARSE, "expected '<blocks> <elements> <min tag> <max tag>'");
    for (long long b = 0; b < blocks && rc == TC_RESULT_OK; ++b) {
        long long dim, entity, type, count, tag;
        if (!next_line(r, &rc)) return rc;
        if (!read_int(r, &dim) || !read_int(r, &entity) || !read_int(r, &type) || !read_int(r, &count) || count < 0 || count > total)
            return fail(r, TC_RESULT_PARSE, "expected '<dim> <entity> <type> <count>' element block header");
        for (long long i = 0; i < count && rc == TC_RESULT_OK; ++i) {
            if (!next_line(r, &rc)) return rc;
            rc = read_int(r, &tag) ? read_tet_nodes(r, type, tets) : fail(r, TC_RESULT_PARSE, "expected an element tag");
        }
    }
    return rc ? rc : expect_end(r, "$EndElements");
}

static int cmp_tag(const void* a, const void* b) {
    const tagged_node *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int find_node(const tagged_node* sorted, int n, long long tag) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid].tag == tag) return sorted[mid].index;
        if (sorted[mid].tag < tag) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

// Tags to indices; only nodes used by a tet are kept, numbered in order of first use.
static tc_result build_mesh(gmsh_reader* r, tagged_node* tags, int tag_count, const tc_vec3* xyz, const long long* tet_tags, int tet_nodes,
                            tc_tetmesh* mesh) {
    if (tag_count == 0) return tc_error_set(r->error, TC_RESULT_DEGENERATE, r->path, "", "$Nodes: no nodes");
    qsort(tags, (size_t)tag_count, sizeof *tags, cmp_tag);
    for (int i = 1; i < tag_count; ++i)
        if (tags[i].tag == tags[i - 1].tag)
            return tc_error_set(r->error, TC_RESULT_PARSE, r->path, "", "$Nodes: node tag %lld appears twice", tags[i].tag);
    if (tet_nodes == 0) return tc_error_set(r->error, TC_RESULT_DEGENERATE, r->path, "", "$Elements: no tetrahedra (element type 4 or 11)");
    int* remap = tc_alloc(sizeof(int) * (size_t)tag_count);
    for (int i = 0; i < tag_count; ++i) remap[i] = -1;
    mesh->tets = tc_alloc(sizeof(int[4]) * (size_t)(tet_nodes / 4));
    mesh->nodes = tc_alloc(sizeof(tc_vec3) * (size_t)tag_count);
    mesh->tet_count = tet_nodes / 4;
    tc_result rc = TC_RESULT_OK;
    for (int k = 0; k < tet_nodes && rc == TC_RESULT_OK; ++k) {
        int in = find_node(tags, tag_count, tet_tags[k]);
        if (in < 0) {
            rc = tc_error_set(r->error, TC_RESULT_OUT_OF_RANGE, r->path, "", "$Elements: tetrahedron %d uses node tag %lld, which $Nodes does not define",
                              k / 4, tet_tags[k]);
            break;
        }
        if (remap[in] < 0) remap[in] = mesh->node_count, mesh->nodes[mesh->node_count++] = xyz[in];
        mesh->tets[k / 4][k % 4] = remap[in];
    }
    tc_free(remap, sizeof(int) * (size_t)tag_count);
    return rc;
}

static tc_result read_sections(gmsh_reader* r, tc_tetmesh* mesh) {
    tag_array tags = {0};
    point_array xyz = {0};
    tag_list tets = {0};
    tc_result rc = TC_RESULT_OK;
    bool format = false, nodes = false, elements = false;
    while (rc == TC_RESULT_OK && !(nodes && elements) && next_content_line(r, &rc, true)) {
        if (*r->cur != '$') {
            rc = fail(r, TC_RESULT_PARSE, "expected a section ($MeshFormat, $Nodes, $Elements, ...)");
        } else if (!format) {
            rc = is_section(r, "$MeshFormat") ? read_format(r) : fail(r, TC_RESULT_PARSE, "the file must start with $MeshFormat");
            format = true;
        } else if (is_section(r, "$Nodes") && !nodes) {
            rc = r->version == 2 ? read_nodes_v2(r, &tags, &xyz) : read_nodes_v4(r, &tags, &xyz);
            nodes = true;
        } else if (is_section(r, "$Elements") && !elements) {
            rc = r->version == 2 ? read_elements_v2(r, &tets) : read_elements_v4(r, &tets);
            elements = true;
        } else {
            rc = skip_section(r);
        }
    }
    if (rc == TC_RESULT_OK && !(nodes && elements))
        rc = tc_error_set(r->error, TC_RESULT_PARSE, r->path, "", "%s", !format ? "no $MeshFormat section" : !nodes ? "no $Nodes section" : "no $Elements section");
    if (rc == TC_RESULT_OK) rc = build_mesh(r, tags.data, tags.count, xyz.data, tets.data, tets.count, mesh);
    tc_array_free(&tags);
    tc_array_free(&xyz);
    tc_array_free(&tets);
    return rc;
}

tc_result tc_tetmesh_read_gmsh(tc_tetmesh* mesh, const char* path, tc_error* error) {
    memset(mesh, 0, sizeof(*mesh));
    gmsh_reader r = {.path = path, .error = error};
    r.fp = fopen(path, "rb");
    if (!r.fp) return tc_error_set(error, TC_RESULT_IO, path, "", "cannot open");
    tc_result rc = read_sections(&r, mesh);
    fclose(r.fp);
    if (rc == TC_RESULT_OK) rc = tc_tetmesh_finalize(mesh, path, error);
    if (rc != TC_RESULT_OK) tc_tetmesh_free(mesh);
    return rc;
}
