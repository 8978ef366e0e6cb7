/* halo3d — a miniGhost-like 3D stencil application, the example hopscope's
 * demo and case studies record.
 *
 * Ranks form a periodic px x py x pz grid (MPI_Dims_create unless -p is
 * given) in x-fastest order: rank = x + px*(y + py*z), so with a linear
 * mapping the x neighbours of a rank share its node, the y neighbours share
 * its leaf switch, and z crosses the machine.  Each rank owns an n^3 box of
 * doubles.  Every iteration it exchanges the six faces with one MPI tag per
 * direction, so hopscope can show each direction as its own phase:
 *
 *     tag 1: +x   tag 2: -x   tag 3: +y   tag 4: -y   tag 5: +z   tag 6: -z
 *
 * (a face sent towards +x carries tag 1), then applies a 7-point Jacobi
 * sweep, and every `-r` iterations an MPI_Allreduce of the residual.
 *
 * usage: halo3d [-n N] [-i ITERS] [-r EVERY] [-p PXxPYxPZ] [-q]
 *   -n N        local box edge (default 32: faces of 8 KiB)
 *   -i ITERS    iterations (default 20)
 *   -r EVERY    residual allreduce every EVERY iterations (default 5)
 *   -p P        process grid, e.g. 4x2x2 (default: MPI_Dims_create)
 *   -q          print only the final line
 * Output: the grid, then per residual check "iter I residual R", then a
 * checksum.  Results do not depend on timing. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { XP, XM, YP, YM, ZP, ZM, NDIR };

static int n, px, py, pz, me, cx, cy, cz;

static int rank_of(int x, int y, int z)
{
    x = (x + px) % px;
    y = (y + py) % py;
    z = (z + pz) % pz;
    return x + px * (y + py * z);
}

/* Index into the (n+2)^3 box with a one-cell ghost layer. */
#define AT(a, i, j, k) (a)[((size_t)(k) * (n + 2) + (j)) * (n + 2) + (i)]

/* Face of the box interior next to direction d (layer = 1 or n), or the
 * ghost layer (layer = 0 or n+1), copied to or from buf. */
static void face_copy(double *a, double *buf, int d, int layer, int to_buf)
{
    size_t m = 0;
    for (int u = 1; u <= n; u++)
        for (int v = 1; v <= n; v++) {
            double *p = d < 2 ? &AT(a, layer, u, v) : d < 4 ? &AT(a, u, layer, v) : &AT(a, u, v, layer);
            if (to_buf)
                buf[m++] = *p;
            else
                *p = buf[m++];
        }
}

static int parse_grid(const char *s)
{
    return sscanf(s, "%dx%dx%d", &px, &py, &pz) == 3 && px > 0 && py > 0 && pz > 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = 20, every = 5, quiet = 0, opt;
    n = 32;
    px = py = pz = 0;
    while ((opt = getopt(argc, argv, "n:i:r:p:q")) != -1) {
        switch (opt) {
        case 'n': n = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'r': every = atoi(optarg); break;
        case 'p':
            if (!parse_grid(optarg)) {
                if (me == 0)
                    fprintf(stderr, "halo3d: bad grid '%s' (want PXxPYxPZ)\n", optarg);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            break;
        case 'q': quiet = 1; break;
        default:
            if (me == 0)
                fprintf(stderr, "usage: halo3d [-n N] [-i ITERS] [-r EVERY] [-p PXxPYxPZ] [-q]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || iters < 0 || every < 1) {
        if (me == 0)
            fprintf(stderr, "halo3d: -n and -r must be >= 1, -i >= 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (px == 0) {
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(size, 3, dims);
        px = dims[2], py = dims[1], pz = dims[0]; /* x the smallest: fastest */
    }
    if (px * py * pz != size) {
        if (me == 0)
            fprintf(stderr, "halo3d: grid %dx%dx%d does not match %d ranks\n", px, py, pz, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cx = me % px;
    cy = me / px % py;
    cz = me / (px * py);
    int nb[NDIR] = {rank_of(cx + 1, cy, cz), rank_of(cx - 1, cy, cz), rank_of(cx, cy + 1, cz),
                    rank_of(cx, cy - 1, cz), rank_of(cx, cy, cz + 1), rank_of(cx, cy, cz - 1)};
    if (me == 0 && !quiet)
        printf("halo3d: %d ranks as %dx%dx%d, box %d^3, %d iterations, faces of %zu bytes\n",
               size, px, py, pz, n, iters, (size_t)n * n * sizeof(double));

    size_t cells = (size_t)(n + 2) * (n + 2) * (n + 2), face = (size_t)n * n;
    double *a = calloc(cells, sizeof *a), *b = calloc(cells, sizeof *b);
    double *sbuf = malloc(NDIR * face * sizeof *sbuf), *rbuf = malloc(NDIR * face * sizeof *rbuf);
    if (!a || !b || !sbuf || !rbuf) {
        fprintf(stderr, "halo3d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++)
                AT(a, i, j, k) = (double)((me * 7 + i * 3 + j * 5 + k * 11) % 17);

    for (int it = 1; it <= iters; it++) {
        MPI_Request rq[2 * NDIR];
        for (int d = 0; d < NDIR; d++) {
            /* A face sent towards +x leaves from our x = n layer; the one we
             * receive with tag +x comes from our -x neighbour and fills our
             * x = 0 ghost layer. */
            int out_layer = d % 2 == 0 ? n : 1;
            face_copy(a, sbuf + d * face, d, out_layer, 1);
            MPI_Irecv(rbuf + d * face, (int)face, MPI_DOUBLE, nb[d ^ 1], d + 1, MPI_COMM_WORLD,
                      &rq[d]);
            MPI_Isend(sbuf + d * face, (int)face, MPI_DOUBLE, nb[d], d + 1, MPI_COMM_WORLD,
                      &rq[NDIR + d]);
        }
        MPI_Status st[2 * NDIR];
        MPI_Waitall(2 * NDIR, rq, st);
        for (int d = 0; d < NDIR; d++)
            face_copy(a, rbuf + d * face, d, d % 2 == 0 ? 0 : n + 1, 0);
        double res = 0;
        for (int k = 1; k <= n; k++)
            for (int j = 1; j <= n; j++)
                for (int i = 1; i <= n; i++) {
                    double v = (AT(a, i - 1, j, k) + AT(a, i + 1, j, k) + AT(a, i, j - 1, k) +
                                AT(a, i, j + 1, k) + AT(a, i, j, k - 1) + AT(a, i, j, k + 1)) / 6.0;
                    res += (v - AT(a, i, j, k)) * (v - AT(a, i, j, k));
                    AT(b, i, j, k) = v;
                }
        double *t = a;
        a = b;
        b = t;
        if (it % every == 0) {
            double sum;
            MPI_Allreduce(&res, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (me == 0 && !quiet)
                printf("iter %d residual %.12e\n", it, sum);
        }
    }
    double local = 0, total;
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++)
                local += AT(a, i, j, k) * (1 + (i + j + k) % 3);
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("halo3d checksum %.12e\n", total);
    free(a);
    free(b);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
