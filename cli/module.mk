# cli/: the hopscope command.
CLI_SRCS += cli/main.c
