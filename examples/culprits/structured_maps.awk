# Writes structured mappings of a 3D process grid onto a 3D torus, in the
# spirit of the study's many mappings: the grid (rank = x + X (y + Y z), as
# `hopscope gen halo3d` numbers it) is cut into blocks of bx x by x bz ranks
# (one block per node: bx by bz = ranks per node), the blocks are taken in
# one of the 6 orders of the grid's axes and laid onto the torus's nodes in
# one of the 6 orders of its axes (node = a + A (b + B c), dimension 0
# fastest, as `torus:AxBxC` numbers them).  Every block shape that divides
# the grid, times 36 orders; N of them (evenly spread over the list) are
# written as DIR/s-K.map, their paths on stdout (for --map-list):
#
#   awk -v grid=8x8x4 -v torus=4x4x4 -v ppn=4 -v n=80 -v dir=maps \
#       -f examples/culprits/structured_maps.awk > maps.txt
BEGIN {
    split(grid, G, "x"); split(torus, T, "x")
    nranks = G[1] * G[2] * G[3]; nodes = T[1] * T[2] * T[3]
    if (nranks != nodes * ppn) { print "structured_maps.awk: grid is not torus x ppn" > "/dev/stderr"; exit 1 }
    np = 0   # the 6 permutations of (1,2,3)
    for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) for (k = 1; k <= 3; k++)
        if (i != j && j != k && i != k) { np++; P[np, 1] = i; P[np, 2] = j; P[np, 3] = k }
    ns = 0   # block shapes
    for (bx = 1; bx <= ppn; bx++) for (by = 1; by <= ppn; by++) for (bz = 1; bz <= ppn; bz++)
        if (bx * by * bz == ppn && G[1] % bx == 0 && G[2] % by == 0 && G[3] % bz == 0) {
            ns++; S[ns, 1] = bx; S[ns, 2] = by; S[ns, 3] = bz
        }
    total = ns * np * np
    if (n == "" || n > total) n = total
    for (m = 0; m < n; m++) {
        k = int(m * total / n)
        s = int(k / (np * np)) + 1; pb = int(k / np) % np + 1; pn = k % np + 1
        f = dir "/s-" m ".map"
        printf "# structured: blocks %dx%dx%d, block order %d%d%d, node order %d%d%d\n", \
            S[s, 1], S[s, 2], S[s, 3], P[pb, 1], P[pb, 2], P[pb, 3], P[pn, 1], P[pn, 2], P[pn, 3] > f
        for (a = 1; a <= 3; a++) B[a] = G[a] / S[s, a]
        for (r = 0; r < nranks; r++) {
            c[1] = r % G[1]; c[2] = int(r / G[1]) % G[2]; c[3] = int(r / (G[1] * G[2]))
            for (a = 1; a <= 3; a++) bc[a] = int(c[a] / S[s, a])
            # block index: axis P[pb,1] fastest
            L = 0; mul = 1
            for (t = 1; t <= 3; t++) { a = P[pb, t]; L += bc[a] * mul; mul *= B[a] }
            # node coordinates: torus axis P[pn,1] fastest
            for (t = 1; t <= 3; t++) { a = P[pn, t]; nc[a] = L % T[a]; L = int(L / T[a]) }
            printf "%d %d\n", r, nc[1] + T[1] * (nc[2] + T[2] * nc[3]) > f
        }
        close(f)
        print f
    }
}
