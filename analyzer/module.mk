# analyzer/: run-directory readers, decoding (through hash/), per-link
# estimates, phase and window views, congestion trees, diagnosis, suggested
# mappings, analysis.json.  Uses hash/, fabric's output formats, and fabric's public
# topology API to recompute the routes of the regular families.
CORE_SRCS += analyzer/rundir_read.c analyzer/appjson.c analyzer/phases.c analyzer/route.c \
             analyzer/analyze.c analyzer/trees.c analyzer/judge.c analyzer/diagnose.c \
             analyzer/mapping.c analyzer/features.c analyzer/cul_table.c analyzer/culprits.c \
             analyzer/cul_output.c analyzer/output.c analyzer/portcounters.c analyzer/latmodel.c \
             analyzer/latmodel_report.c
INSTALL_HEADERS += include/hopscope/analyzer.h
CFLAGS_analyzer_ := -O3
UNIT_TESTS += tests/unit/test_judge.c tests/unit/test_trees.c tests/unit/test_route.c tests/unit/test_diagnosis.c tests/unit/test_analyze_rundir.c \
              tests/unit/test_features.c tests/unit/test_culprits.c tests/unit/test_latmodel.c
