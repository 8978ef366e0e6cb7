/* truth_links RUN: ground-truth link loads of a run directory, per class of
 * link, from links.tsv and truth.bin (docs/formats.md), for tests and
 * experiments that explain a replay's times by the load it put on links.
 *
 * Prints one line per class ("injection", "ejection", "up1", "down1", ...,
 * "local", "global", "torus", "plain"):
 *     CLASS LINKS BYTES MAX_BYTES MAX_BUSY_PS
 * then "busiest LINK_ID BUSY_PS CLASS" (the link that was transmitting longest).
 * Exit status 1 with a message on a malformed directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCLASS 32

typedef struct cls {
    char name[40];
    uint64_t links, bytes, max_bytes, max_busy;
} cls;

static int die(const char *what)
{
    fprintf(stderr, "truth_links: %s\n", what);
    return 1;
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return die("usage: truth_links RUN");
    char path[4096];
    snprintf(path, sizeof path, "%s/links.tsv", argv[1]);
    FILE *f = fopen(path, "r");
    if (!f)
        return die("cannot open links.tsv");
    char line[4096];
    char (*name)[40] = NULL;
    uint32_t nl = 0, cap = 0;
    int header = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (!header++) {
            if (strncmp(line, "id\tkind\tsub\tlevel", 17) != 0)
                return die("links.tsv: unexpected columns");
            continue;
        }
        char kind[32], sub[32];
        unsigned id, level;
        if (sscanf(line, "%u\t%31s\t%31s\t%u", &id, kind, sub, &level) != 4)
            return die("links.tsv: bad row");
        if (id != nl + 1)
            return die("links.tsv: ids not dense");
        if (nl == cap) {
            cap = cap ? 2 * cap : 1024;
            name = realloc(name, cap * sizeof *name);
            if (!name)
                return die("out of memory");
        }
        if (strcmp(kind, "switch") != 0)
            snprintf(name[nl], sizeof name[nl], "%s", kind);
        else if (!strcmp(sub, "up") || !strcmp(sub, "down"))
            snprintf(name[nl], sizeof name[nl], "%s%u", sub, level);
        else
            snprintf(name[nl], sizeof name[nl], "%s", sub);
        nl++;
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/truth.bin", argv[1]);
    f = fopen(path, "rb");
    if (!f)
        return die("cannot open truth.bin");
    unsigned char h[48];
    if (fread(h, 1, sizeof h, f) != sizeof h || memcmp(h, "HSTRUTH", 8) != 0 || rd32(h + 8) != 1)
        return die("truth.bin: bad header");
    uint32_t L = rd32(h + 16), P = rd32(h + 20), W = rd32(h + 24), eb = rd32(h + 28);
    if (L != nl || eb != 40)
        return die("truth.bin: link count or entry size does not match links.tsv");
    if (fseek(f, (long)(rd32(h + 12) + 4ull * P + 8ull * W), SEEK_SET) != 0)
        return die("truth.bin: cannot seek");
    cls c[MAXCLASS];
    unsigned nc = 0;
    uint64_t busiest = 0, busiest_id = 0;
    for (uint32_t l = 0; l < L; l++) {
        unsigned char e[40];
        if (fread(e, 1, sizeof e, f) != sizeof e)
            return die("truth.bin: short");
        uint64_t bytes = rd64(e + 8), busy = rd64(e + 16);
        unsigned k = 0;
        while (k < nc && strcmp(c[k].name, name[l]) != 0)
            k++;
        if (k == nc) {
            if (nc == MAXCLASS)
                return die("too many link classes");
            memset(&c[nc], 0, sizeof c[nc]);
            snprintf(c[nc].name, sizeof c[nc].name, "%s", name[l]);
            nc++;
        }
        c[k].links++;
        c[k].bytes += bytes;
        if (bytes > c[k].max_bytes)
            c[k].max_bytes = bytes;
        if (busy > c[k].max_busy)
            c[k].max_busy = busy;
        if (busy > busiest) {
            busiest = busy;
            busiest_id = l + 1;
        }
    }
    fclose(f);
    for (unsigned k = 0; k < nc; k++)
        printf("%s %llu %llu %llu %llu\n", c[k].name, (unsigned long long)c[k].links,
               (unsigned long long)c[k].bytes, (unsigned long long)c[k].max_bytes,
               (unsigned long long)c[k].max_busy);
    printf("busiest %llu %llu %s\n", (unsigned long long)busiest_id, (unsigned long long)busiest,
           busiest_id ? name[busiest_id - 1] : "-");
    free(name);
    return 0;
}
