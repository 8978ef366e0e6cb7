# cli/: the hopscope command.
CLI_SRCS += cli/main.c
CLI_SRCS += cli/cmd_demo.c cli/cmd_run.c cli/pipeline.c
CLI_SRCS += cli/cmd_topo.c
CLI_SRCS += cli/cmd_simulate.c
CLI_SRCS += cli/cmd_analyze.c cli/cmd_whatif.c
CLI_SRCS += cli/cmd_trace.c cli/cmd_record.c cli/cmd_trace_smpi.c
CLI_SRCS += cli/cmd_gen.c
CLI_SRCS += cli/cmd_render.c cli/progress.c
CLI_SRCS += cli/cmd_sweep.c
CLI_SRCS += cli/cmd_latmodel.c
