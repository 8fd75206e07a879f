#!/bin/sh
# OBJ surface -> TetGen tet mesh (<out>.node, <out>.ele) readable by tc_tetmesh_read_tetgen.
# Usage: scripts/obj2tet.sh in.obj out_base [max_tet_volume]
# Needs the `tetgen` program (Debian package tetgen). Faces are triangulated as fans.
set -eu
if [ $# -lt 2 ]; then echo "usage: $0 in.obj out_base [max_tet_volume]" >&2; exit 2; fi
in=$1; out=$2; maxvol=${3:-}
command -v tetgen >/dev/null || { echo "obj2tet: tetgen not found (apt-get install tetgen)" >&2; exit 1; }
[ -r "$in" ] || { echo "obj2tet: cannot read $in" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# OBJ -> OFF: keep vertex positions, drop texture/normal indices, fan-triangulate polygons.
awk '
  $1 == "v" { v[nv++] = $2 " " $3 " " $4 }
  $1 == "f" { n = 0; for (i = 2; i <= NF; ++i) { split($i, p, "/"); idx[n++] = (p[1] < 0 ? nv + p[1] : p[1] - 1) }
              for (i = 1; i + 1 < n; ++i) f[nf++] = "3 " idx[0] " " idx[i] " " idx[i + 1] }
  END { if (nv < 4 || nf < 4) { print "obj2tet: too few vertices or faces" > "/dev/stderr"; exit 1 }
        print "OFF"; print nv, nf, 0; for (i = 0; i < nv; ++i) print v[i]; for (i = 0; i < nf; ++i) print f[i] }
' "$in" > "$tmp/mesh.off"
opts=-pq1.414
[ -n "$maxvol" ] && opts="${opts}a$maxvol"
tetgen -Q "$opts" "$tmp/mesh.off"
cp "$tmp/mesh.1.node" "$out.node"
cp "$tmp/mesh.1.ele" "$out.ele"
