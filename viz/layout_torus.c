#include "vz.h"
int hs__vz_layout_torus(const hs_viz_model *m, const hs__vz_layout_opts *o,
                        hs__vz_scene **scenes, size_t *nscenes)
{
    (void)m; (void)o; (void)scenes; (void)nscenes;
    return HS_ENOTSUP;
}
