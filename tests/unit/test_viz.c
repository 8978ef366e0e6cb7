/* Unit tests for viz/: the analysis.json reader (what it accepts, what it
 * rejects and how it says so, mutated input never crashing), the colour
 * scale, number formatting and escaping, and deterministic rendering. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopscope/viz.h"
#include "../../viz/vz.h"

/* Two nodes under one switch of a file topology; link 3 is congested and
 * a root, link 4 has traffic without enough data, 1 and 2 are idle (1
 * without a traffic key, as the analyzer writes idle links); links 3 and 4
 * carry the from_kind/to_kind of earlier writers; one phase names link 3
 * a root. */
static const char *TINY =
    "{\"format\":\"hopscope-analysis\",\"version\":1,\"command\":\"hopscope analyze R\","
    "\"run\":\"R\",\"future_key\":{\"x\":[1,2]},"
    "\"params\":{\"cf_threshold\":0.25,\"z\":2},"
    "\"topology\":{\"kind\":\"file\",\"spec\":\"file:t.topo\",\"nodes\":2,\"switches\":1,"
    "\"links\":4,\"link_capacity\":25e9},"
    "\"summary\":{\"links_ok\":1,\"links_congested\":1,\"roots\":1,\"max_cf\":0.8},"
    "\"diagnosis\":[{\"kind\":\"pattern\",\"summary\":\"Incast <into> n0 & more.\","
    "\"links\":[3],\"root_links\":1,\"nodes\":[0,1],\"ranks\":[],\"phases\":[\"p\"]}],"
    "\"roots\":[{\"links\":[3],\"size\":1,\"tree\":[3],\"victims\":[],\"endpoint\":true,"
    "\"heavy\":true,\"load_peak\":0.9,\"cf\":0.8,\"cf_se\":0.05,\"congested\":80}],"
    "\"devices\":{\"nodes\":["
    "{\"i\":0,\"name\":\"n0\",\"switch\":0,\"injection\":1,\"ejection\":3,\"ranks\":[0,1,2]},"
    "{\"i\":1,\"name\":\"n1\",\"switch\":0,\"injection\":2,\"ejection\":4,\"ranks\":[3]}],"
    "\"switches\":[{\"i\":0,\"name\":\"s0\",\"ports\":2}]},"
    "\"links\":["
    "{\"id\":1,\"from\":0,\"to\":0,\"kind\":\"injection\",\"status\":\"insufficient\"},"
    "{\"id\":2,\"from\":1,\"to\":0,\"kind\":\"injection\",\"status\":\"insufficient\","
    "\"traffic\":0},"
    "{\"id\":3,\"from_kind\":\"switch\",\"from\":0,\"to_kind\":\"node\",\"to\":0,"
    "\"kind\":\"ejection\",\"sub\":\"-\",\"capacity\":25e9,\"status\":\"ok\","
    "\"is_congested\":true,\"is_root\":true,\"traffic\":100,\"traffic_se\":0,\"congested\":80,"
    "\"congested_se\":5,\"cf\":0.8,\"cf_se\":0.05,\"load\":0.9,\"load_peak\":0.9,"
    "\"truth\":{\"packets\":100,\"congested\":78,\"cf\":0.78}},"
    "{\"id\":4,\"from_kind\":\"switch\",\"from\":0,\"to_kind\":\"node\",\"to\":1,"
    "\"kind\":\"ejection\",\"sub\":\"-\",\"capacity\":25e9,\"status\":\"insufficient\","
    "\"is_congested\":false,\"is_root\":false,\"traffic\":7,\"traffic_se\":0,\"congested\":0,"
    "\"congested_se\":0,\"cf\":0,\"cf_se\":0,\"load\":0.05,\"load_peak\":0.05}],"
    "\"phases\":[{\"index\":0,\"name\":\"p\",\"kind\":\"p2p\",\"user_named\":false,\"app\":true,"
    "\"phase_ids\":[0],\"tags\":[1,1],\"collective\":null,\"messages\":10,\"bytes\":40960,"
    "\"time_ps\":5000000,\"records\":107,\"packets\":107,\"flagged\":80,\"links_ok\":1,"
    "\"links_congested\":1,\"roots\":[3],"
    "\"columns\":[\"id\",\"traffic\",\"traffic_se\",\"congested\",\"congested_se\",\"cf\","
    "\"cf_se\",\"load\",\"flags\"],\"rows\":[[3,100,0,80,5,0.8,0.05,0.9,3]]},"
    "{\"index\":1,\"name\":\"q\",\"kind\":\"p2p\",\"app\":true,\"packets\":0,\"flagged\":0,"
    "\"links_ok\":0,\"links_congested\":0,\"roots\":[],"
    "\"columns\":[\"id\",\"traffic\",\"cf\",\"load\",\"flags\"],\"rows\":[]}],"
    "\"windows\":{\"window_ps\":1000000,\"decoder\":\"route-aware\",\"list\":["
    "{\"index\":0,\"t0_ps\":0,\"t1_ps\":1000000,\"packets\":107,\"flagged\":80,\"links_ok\":1,"
    "\"links_congested\":1,\"roots\":[3],\"columns\":[\"id\",\"traffic\",\"cf\",\"load\","
    "\"flags\"],\"rows\":[[3,100,0.8,0.9,3]]}]},"
    "\"accuracy\":null,"
    "\"app\":{\"ranks\":4,\"mapping\":{\"policy\":\"linear\",\"ranks_per_node\":2},"
    "\"time\":{\"total_ps\":9000000},\"latency\":{\"messages\":10,\"p50_ps\":1000000,"
    "\"p99_ps\":4000000,\"mean_ps\":1500000,\"max_ps\":4100000,"
    "\"histogram\":{\"edges_ps\":[500000,1000000,2000000,5000000],\"counts\":[2,6,2]},"
    "\"by_phase\":{\"0\":{\"messages\":10,\"p50_ps\":1000000,\"p99_ps\":4000000,"
    "\"mean_ps\":1500000,\"max_ps\":4100000}}},\"congestion_impact\":null,"
    "\"background\":null}}";

static hs_viz_model *parse_ok(const char *s)
{
    hs_viz_model *m = NULL;
    hs_error e;
    hs_error_clear(&e);
    int rc = hs_viz_parse(s, strlen(s), "t.json", &m, &e);
    if (rc)
        fail_msg("parse failed: %s", hs_error_str(&e, rc));
    return m;
}

/* Parses s, expects status rc and a message containing want (and the file
 * name and "offset" for format errors). */
static void parse_bad(const char *s, int rc, const char *want)
{
    hs_viz_model *m = (hs_viz_model *)1;
    hs_error e;
    hs_error_clear(&e);
    int got = hs_viz_parse(s, strlen(s), "t.json", &m, &e);
    assert_int_equal(got, rc);
    assert_null(m);
    if (!strstr(e.msg, want) || !strstr(e.msg, "t.json: offset "))
        fail_msg("message '%s' lacks '%s' or the file and offset", e.msg, want);
}

/* TINY with the first occurrence of from replaced by to. */
static char *edit(const char *from, const char *to)
{
    const char *p = strstr(TINY, from);
    assert_non_null(p);
    size_t n = strlen(TINY) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    size_t pre = (size_t)(p - TINY);
    memcpy(s, TINY, pre);
    strcpy(s + pre, to);
    strcat(s, p + strlen(from));
    return s;
}

static void test_read(void **state)
{
    (void)state;
    hs_viz_model *m = parse_ok(TINY);
    assert_int_equal(m->N, 2);
    assert_int_equal(m->S, 1);
    assert_int_equal(m->L, 4);
    assert_int_equal(m->topo, HS__VZ_TOPO_OTHER);
    assert_string_equal(m->name[2], "s0");
    assert_int_equal(m->lk[3].from, 2); /* switch 0 is device N + 0 */
    assert_int_equal(m->lk[3].to, 0);
    assert_int_equal(m->lk[3].kind, HS__VZ_EJ);
    assert_int_equal(m->est[1].state, HS__VZ_IDLE);
    assert_true(m->lk[1].capacity == 25e9 && m->lk[1].from == 0 && m->lk[1].to == 2);
    assert_int_equal(m->est[3].state, HS__VZ_OK);
    assert_int_equal(m->est[4].state, HS__VZ_INSUFF);
    assert_true(m->est[3].cf == 0.8 && m->est[3].t_cf == 0.78);
    assert_int_equal(m->nroots, 1);
    assert_int_equal(hs__vz_root_number(m, 3), 1);
    assert_int_equal(hs__vz_root_number(m, 4), 0);
    assert_int_equal(m->rank_off[1] - m->rank_off[0], 3);
    assert_int_equal(m->rank[m->rank_off[1]], 3);
    assert_int_equal(m->nphases, 2);
    assert_int_equal(m->phases[0].nrows, 1);
    assert_int_equal(m->phases[0].row[0].root, 1);
    assert_int_equal(m->phases[0].phase_id, 0);
    assert_int_equal(m->nwindows, 1);
    assert_int_equal(m->app.lat.nbins, 3);
    assert_int_equal(m->app.nby_phase, 1);
    char nm[200];
    assert_string_equal(hs__vz_link_name(m, 3, nm, sizeof nm), "s0\u2192n0 (ejection)");
    /* a phase's view: its rows; links idle in the whole run stay idle,
     * the others lack data in this phase */
    hs__vz_est d[5];
    hs__vz_view_dense(m, &m->phases[1], d);
    assert_int_equal(d[1].state, HS__VZ_IDLE);
    assert_int_equal(d[3].state, HS__VZ_NODATA);
    hs__vz_view_dense(m, &m->phases[0], d);
    assert_int_equal(d[3].state, HS__VZ_OK);
    hs_viz_free(m);
}

static void test_reject(void **state)
{
    (void)state;
    parse_bad("[1]", HS_EFORMAT, "expected an object at the top");
    char *s = edit("hopscope-analysis", "hopscope-run");
    parse_bad(s, HS_EFORMAT, "not a hopscope analysis");
    free(s);
    s = edit("\"version\":1", "\"version\":2");
    parse_bad(s, HS_EVERSION, "version 2 is not understood");
    free(s);
    s = edit("\"links\":4,", "\"links\":5,");
    parse_bad(s, HS_EFORMAT, "links has 4 entries, topology.links says 5");
    free(s);
    s = edit("\"from\":1,\"to\":0", "\"from\":2,\"to\":0");
    parse_bad(s, HS_EFORMAT, "links[1].from: expected an integer in [0, 1]");
    free(s);
    s = edit("\"traffic\":100", "\"traffic\":\"many\"");
    parse_bad(s, HS_EFORMAT, "links[2].traffic is a string, expected a number");
    free(s);
    s = edit("\"kind\":\"ejection\"", "\"kind\":\"injection\"");
    parse_bad(s, HS_EFORMAT, "kind 'injection' does not fit a switch-to-node link");
    free(s);
    s = edit("\"status\":\"ok\"", "\"status\":\"fine\"");
    parse_bad(s, HS_EFORMAT, "links[2].status 'fine'");
    free(s);
    s = edit("\"rows\":[[3,100,0,80,5,0.8,0.05,0.9,3]]", "\"rows\":[[9,100,0,80,5,0.8,0.05,0.9,3]]");
    parse_bad(s, HS_EFORMAT, "phases[0].rows[0]: link id not in 1..4");
    free(s);
    s = edit("\"roots\":[{\"links\":[3]", "\"roots\":[{\"links\":[0]");
    parse_bad(s, HS_EFORMAT, "roots[0].links[0]: expected an integer in [1, 4]");
    free(s);
    s = edit("\"injection\":1,", "\"injection\":2,");
    parse_bad(s, HS_EFORMAT, "devices.nodes[0]: injection 2 / ejection 3");
    free(s);
    s = edit("\"counts\":[2,6,2]", "\"counts\":[2,6]");
    parse_bad(s, HS_EFORMAT, "2 counts need 3 edges, not 4");
    free(s);
    s = edit("\"devices\":", "\"devicez\":");
    parse_bad(s, HS_EFORMAT, "key 'devices' missing");
    free(s);
    /* ranges: values no analysis can produce are refused by name */
    s = edit("\"cf\":0.8,\"cf_se\":0.05,\"load\"", "\"cf\":1e308,\"cf_se\":0.05,\"load\"");
    parse_bad(s, HS_EFORMAT, "links[2].cf = 1e+308 is not congested / traffic (80 / 100)");
    free(s);
    s = edit("\"cf\":0.8,\"cf_se\":0.05,\"load\"", "\"cf\":0.8,\"cf_se\":-1e308,\"load\"");
    parse_bad(s, HS_EFORMAT, "links[2].cf_se = -1e+308 is outside [0, inf]");
    free(s);
    s = edit("\"heavy\":true,\"load_peak\":0.9,\"cf\":0.8",
             "\"heavy\":true,\"load_peak\":0.9,\"cf\":1e308");
    parse_bad(s, HS_EFORMAT, "roots[0].cf = 1e+308 is outside [-0.800008, 0.800008]");
    free(s);
    s = edit("\"max_cf\":0.8", "\"max_cf\":7");
    parse_bad(s, HS_EFORMAT, "summary.max_cf = 7 is larger than every link's CF");
    free(s);
    s = edit("\"cf_threshold\":0.25", "\"cf_threshold\":-3");
    parse_bad(s, HS_EFORMAT, "params.cf_threshold = -3 is outside [0, 1]");
    free(s);
    s = edit("\"cf\":0.78}", "\"cf\":1.5}");
    parse_bad(s, HS_EFORMAT, "links[2].truth.cf = 1.5 is outside [0, 1]");
    free(s);
    s = edit("[[3,100,0,80,5,0.8,0.05,0.9,3]]", "[[3,100,-1,80,5,0.8,0.05,0.9,3]]");
    parse_bad(s, HS_EFORMAT, "phases[0].rows[0]: a negative standard error");
    free(s);
    /* syntax errors come from the JSON reader, with the offset */
    parse_bad("{\"format\":", HS_EFORMAT, "t.json");
}

/* Mutations of a valid document: every one is accepted or rejected with a
 * message, never a crash (this test runs under ASan+UBSan as well). */
static void test_fuzz(void **state)
{
    (void)state;
    size_t n = strlen(TINY);
    char *s = malloc(n + 1);
    assert_non_null(s);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned accepted = 0, rejected = 0;
    static const char alphabet[] = "{}[]\",:0123456789-.eEtruefalsn \\";
    for (int it = 0; it < 3000; it++) {
        memcpy(s, TINY, n + 1);
        size_t len = n;
        int edits = 1 + it % 4;
        for (int k = 0; k < edits && len > 0; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t at = (size_t)(x % len);
            if (it % 7 == 0)
                len = at; /* truncation */
            else
                s[at] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
        }
        hs_viz_model *m = NULL;
        hs_error e;
        hs_error_clear(&e);
        int rc = hs_viz_parse(s, len, "f.json", &m, &e);
        if (rc == 0) {
            accepted++;
            /* what is accepted must render */
            hs_viz_doc *docs;
            size_t nd;
            assert_int_equal(hs_viz_render(m, NULL, NULL, &docs, &nd, &e), 0);
            hs_viz_docs_free(docs, nd);
            hs_viz_free(m);
        } else {
            rejected++;
            assert_null(m);
            assert_true(strstr(e.msg, "f.json") != NULL);
        }
    }
    assert_true(accepted > 0 && rejected > 0);
    free(s);
}

/* The scale: anchors of the map, and darker as the fraction grows. */
static void test_colour(void **state)
{
    (void)state;
    unsigned char c[3];
    char hex[8];
    /* CF 0 is magma 0.88 = anchor 14 + 0.08 of the way to anchor 15 */
    hs_viz_cf_rgb(0, c);
    assert_int_equal(c[0], 254);
    assert_int_equal(c[1], (int)lround(194 + (224 - 194) * 0.08));
    assert_int_equal(c[2], (int)lround(135 + (161 - 135) * 0.08));
    assert_string_equal(hs__vz_cf_hex(1, hex), "#060517"); /* magma 0.04: near black */
    assert_string_equal(hs__vz_cf_hex(2, hex), hs__vz_cf_hex(1, hex));
    char h2[8];
    assert_string_equal(hs__vz_cf_hex(NAN, hex), hs__vz_cf_hex(0, h2));
    double prev = 2;
    for (int i = 0; i <= 100; i++) {
        hs_viz_cf_rgb(i / 100.0, c);
        double lin[3];
        for (int k = 0; k < 3; k++) {
            double v = c[k] / 255.0;
            lin[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
        }
        double lum = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
        assert_true(lum < prev);
        prev = lum;
    }
}

static void test_text(void **state)
{
    (void)state;
    hs__vz_buf b = { 0 };
    hs__vz_num(&b, 1.04);
    hs__vz_puts(&b, " ");
    hs__vz_num(&b, -0.25);
    hs__vz_puts(&b, " ");
    hs__vz_num(&b, 12.0);
    hs__vz_puts(&b, " ");
    hs__vz_num(&b, NAN);
    hs__vz_puts(&b, " ");
    hs__vz_esc(&b, "a<b & \"c\" 'd'\x01>");
    assert_string_equal(b.s, "1 -0.3 12 0 a&lt;b &amp; &quot;c&quot; &#39;d&#39;?&gt;");
    hs__vz_buf_free(&b);
    char t[32];
    assert_string_equal(hs__vz_time(1.5e6, t, sizeof t), "1.5 us");
    assert_string_equal(hs__vz_time(250, t, sizeof t), "0.25 ns");
    assert_string_equal(hs__vz_bytes(40960, t, sizeof t), "41 kB");
}

static const hs_viz_doc *doc(const hs_viz_doc *d, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(d[i].name, name) == 0)
            return &d[i];
    return NULL;
}

static void test_render(void **state)
{
    (void)state;
    hs_viz_model *m = parse_ok(TINY);
    hs_viz_options o;
    hs_viz_options_default(&o);
    o.command = "hopscope render R";
    hs_viz_doc *d1, *d2;
    size_t n1, n2;
    hs_error e;
    assert_int_equal(hs_viz_render(m, NULL, &o, &d1, &n1, &e), 0);
    assert_int_equal(hs_viz_render(m, m, &o, &d2, &n2, &e), 0);
    const hs_viz_doc *net = doc(d1, n1, "network.svg"), *rep = doc(d1, n1, "report.html");
    assert_non_null(net);
    assert_non_null(rep);
    assert_string_equal(d1[n1 - 1].name, "report.html");
    assert_non_null(doc(d1, n1, "phases.svg"));
    assert_non_null(doc(d1, n1, "latency.svg"));
    assert_non_null(doc(d1, n1, "windows.svg"));
    assert_null(doc(d1, n1, "compare.svg"));
    assert_non_null(doc(d2, n2, "compare.svg"));
    /* the congested root link: its colour, its ring, its tooltip */
    char hex[8], want[64];
    snprintf(want, sizeof want, "stroke=\"%s\"", hs__vz_cf_hex(0.8, hex));
    assert_non_null(strstr(net->text, want));
    assert_non_null(strstr(net->text, "stroke=\"" HS__VZ_COL_ROOT "\""));
    assert_non_null(strstr(net->text, "CF 0.800 \u00b1 0.050 (congested)"));
    assert_non_null(strstr(net->text, "truth: CF 0.780 of 100 packets"));
    assert_non_null(strstr(net->text, "stroke-dasharray=\"" HS__VZ_DASH_INSUFF "\""));
    assert_non_null(strstr(net->text, "id=\"net-legend\""));
    /* the report: diagnosis first, escaped, the pictures inline */
    const char *dg = strstr(rep->text, "id=\"diagnosis\""), *nw = strstr(rep->text, "id=\"network\"");
    assert_non_null(dg);
    assert_non_null(nw);
    assert_true(dg < nw);
    assert_non_null(strstr(rep->text, "Incast &lt;into&gt; n0 &amp; more."));
    assert_non_null(strstr(rep->text, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(rep->text, "hopscope render R"));
    /* determinism: the same input renders to the same bytes */
    hs_viz_doc *d3;
    size_t n3;
    assert_int_equal(hs_viz_render(m, NULL, &o, &d3, &n3, &e), 0);
    assert_int_equal(n1, n3);
    for (size_t i = 0; i < n1; i++) {
        assert_string_equal(d1[i].name, d3[i].name);
        assert_int_equal(d1[i].len, d3[i].len);
        assert_memory_equal(d1[i].text, d3[i].text, d1[i].len);
    }
    hs_viz_docs_free(d1, n1);
    hs_viz_docs_free(d2, n2);
    hs_viz_docs_free(d3, n3);
    hs_viz_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),   cmocka_unit_test(test_reject),
        cmocka_unit_test(test_fuzz),   cmocka_unit_test(test_colour),
        cmocka_unit_test(test_text),   cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
