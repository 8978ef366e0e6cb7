# examples/: MPI example applications, built per MPI (like the interposer)
# into $(BUILD)/examples/<mpi>/ so `hopscope demo` and the case studies can
# run them; installed to $(PREFIX)/share/hopscope/examples/.
EXAMPLE_APPS := halo3d

define example_rules
$(BUILD)/examples/$(1)/%: examples/%/*.c
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $$@ examples/$$*/$$*.c
ALL_TARGETS += $(addprefix $(BUILD)/examples/$(1)/,$(EXAMPLE_APPS))
endef
$(eval $(call example_rules,openmpi))
$(eval $(call example_rules,mpich))

INSTALL_EXTRA += install -d $(DESTDIR)$(PREFIX)/share/hopscope/examples/halo3d && \
	install -m 644 examples/halo3d/halo3d.c $(DESTDIR)$(PREFIX)/share/hopscope/examples/halo3d/ ;
