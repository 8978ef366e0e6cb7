# viz/: SVG pictures and the HTML report of an analysis.json (reads that
# file only, never run directories or other modules' code).
CORE_SRCS += viz/buf.c viz/model.c viz/scene.c viz/marks.c viz/draw.c viz/layout_levels.c \
             viz/layout_torus.c viz/layout_dragonfly.c viz/charts.c viz/report.c \
             viz/culprits.c
INSTALL_HEADERS += include/hopscope/viz.h
UNIT_TESTS += tests/unit/test_viz.c tests/unit/test_viz_layout.c
# Screenshot checker for the headless-Chromium test (tests/integration/viz.sh).
TEST_EXTRA += $(BUILD)/tests/helpers/png_check
