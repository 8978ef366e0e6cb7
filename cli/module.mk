# cli/: the hopscope command.
CLI_SRCS += cli/main.c cli/entry.c
CLI_SRCS += cli/cmd_demo.c cli/cmd_run.c cli/pipeline.c
CLI_SRCS += cli/cmd_topo.c
CLI_SRCS += cli/cmd_simulate.c
CLI_SRCS += cli/cmd_analyze.c cli/cmd_whatif.c
CLI_SRCS += cli/cmd_trace.c cli/cmd_record.c cli/cmd_trace_smpi.c
CLI_SRCS += cli/cmd_gen.c
CLI_SRCS += cli/cmd_render.c cli/progress.c
CLI_SRCS += cli/cmd_sweep.c
CLI_SRCS += cli/cmd_latmodel.c
CLI_SRCS += cli/cmd_culprits.c

# hopscope-par: the same command with an MPI transport for parallel runs
# (docs/fabric.md, "Parallel runs"), one per MPI found, in
# $(BUILD)/bin/<mpi>/hopscope-par.  Only cli/par_mpi.c and cli/par_family.c see MPI; hopscope
# itself is built without it.
PAR_CLI_OBJS := $(filter-out $(BUILD)/obj/cli/entry.o,$(CLI_SRCS:%.c=$(BUILD)/obj/%.o))
define HS_PAR_EXE
$(BUILD)/bin/$(1)/hopscope-par: cli/par_mpi.c cli/par_family.c cli/cli.h $(PAR_CLI_OBJS) $(BUILD)/lib/libhopscope-core.a
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -std=gnu11 -D_GNU_SOURCE -Iinclude -O2 -g -Wall -Wextra -Werror -o $$@ \
	    cli/par_mpi.c cli/par_family.c $(PAR_CLI_OBJS) $(BUILD)/lib/libhopscope-core.a $(LDLIBS_CORE)
ALL_TARGETS += $(BUILD)/bin/$(1)/hopscope-par
endef
$(foreach m,$(HS_MPIS_FOUND),$(eval $(call HS_PAR_EXE,$(m))))
