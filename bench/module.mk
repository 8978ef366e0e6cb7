# bench/: benchmark programs (bench/*.c) and their driver scripts (bench/*.sh).
BENCH_SRCS += $(wildcard bench/*.c)
