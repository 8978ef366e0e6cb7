/* libtrace/interpose/wire_host.c — the table libhopscope.so hands to
 * libhopscope-wire.so (libtrace/wire_host.h).  Nothing here runs unless the
 * wire library is preloaded and asks. */
#include "interpose.h"
#include "../wire_host.h"

HS__HIDDEN hs__wire_end_fn hs__wire_end;

static int wire_thread(void)
{
    hs__tbuf *b = hs__t.buf;
    return b ? (int)b->thread : -1;
}

const hs__wire_host *hopscope_wire_host_v1(void);
const hs__wire_host *hopscope_wire_host_v1(void)
{
    static hs__wire_host h;
    hs__early_init();   /* the clock choice, whichever constructor ran first */
    h = (hs__wire_host){
        .size_of = sizeof h, .use_tsc = hs__g.use_tsc, .active = &hs__g.active,
        .started = &hs__g.started, .finished = &hs__g.finished, .rank = &hs__g.rank,
        .size = &hs__g.size, .shift = &hs__g.shift, .tick_hz = &hs__g.tick_hz,
        .flush_ticks = &hs__g.flush_ticks, .zlevel = &hs__g.zlevel, .tzlevel = &hs__g.tzlevel,
        .dir = hs__g.dir, .clk0 = &hs__g.clk0, .thread = wire_thread, .end_hook = &hs__wire_end,
        .serial = &hs__g.serial,
    };
    return &h;
}
