# crumple — one entry point.
#   make                 build/libcrumple.a and build/bin/crumple (float)
#   make FIXED=1         the same in Q32.32 fixed point, in build-fixed/
#   make test            float and fixed suites, -O0 determinism, promise checks (nm)
#   make test-sanitize   the suites under ASan + UBSan
#   make demo            the README's first command
#   make bench           benchmarks, printed as JSON
#   make cross           Cortex-M4F libraries (both modes, sizes) and the suite as 32-bit x86
# Settings below are ?= so that a user can override any of them.

CC      ?= cc
OPT     ?= -O2
FIXED   ?= 0
ifeq ($(FIXED),1)
BUILD   ?= build-fixed
else
BUILD   ?= build
endif
EXTRA_CFLAGS ?=
EXTRA_LDFLAGS ?=
AR      ?= ar
STB_INCLUDE ?= /usr/include/stb

# Determinism flags are not optional: no fused multiply-add, no fast-math.
CFLAGS_COMMON := -std=c11 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -fno-math-errno \
                 $(OPT) -DCR_FIXED=$(FIXED) -Iruntime/include $(EXTRA_CFLAGS)
# stb_ds (tools only) is a system header (its macros trip -Wextra) and spells
# GNU's typeof, which strict C11 calls __typeof__.
CFLAGS_HOST   := $(CFLAGS_COMMON) -Iplatform -isystem $(STB_INCLUDE) -Itools -MMD -MP -Dtypeof=__typeof__

RUNTIME_SRC  := $(sort $(wildcard runtime/src/*.c))
TOOLS_SRC    := $(filter-out tools/main.c,$(sort $(wildcard tools/*.c)))
TEST_SRC     := $(sort $(wildcard tests/*.c))
PLATFORM_SRC := platform/posix.c

RUNTIME_OBJ  := $(RUNTIME_SRC:%.c=$(BUILD)/obj/%.o)
TOOLS_OBJ    := $(TOOLS_SRC:%.c=$(BUILD)/obj/%.o) $(PLATFORM_SRC:%.c=$(BUILD)/obj/%.o)
TEST_OBJ     := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)

LIB       := $(BUILD)/libcrumple.a
TOOLS_LIB := $(BUILD)/libcrumple_tools.a
CLI       := $(BUILD)/bin/crumple
TESTS     := $(BUILD)/bin/crumple_tests

.PHONY: print-tests all lib cli tests test test-one test-sanitize demo bench cross clean data
all: $(LIB) $(CLI)
lib: $(LIB)
cli: $(CLI)
tests: $(TESTS)

$(BUILD)/obj/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -Iruntime/src -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Iruntime/src -I$(BUILD)/gen -c $< -o $@

$(LIB): $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(TOOLS_LIB): $(TOOLS_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(CLI): $(BUILD)/obj/tools/main.o $(TOOLS_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(EXTRA_CFLAGS) $^ -o $@ -lm $(EXTRA_LDFLAGS)

# Tests are found by name: every CR_TEST(name) in tests/*.c lands in the list.
$(BUILD)/gen/test_list.h: $(TEST_SRC)
	@mkdir -p $(dir $@)
	grep -ho 'CR_TEST([A-Za-z0-9_]*)' $(TEST_SRC) | sed 's/CR_TEST(\(.*\))/CR_TEST_ENTRY(\1)/' > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/tests/test_main.o: $(BUILD)/gen/test_list.h

$(TESTS): $(TEST_OBJ) $(TOOLS_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(EXTRA_CFLAGS) $^ -o $@ -lm $(EXTRA_LDFLAGS)

# One suite in this configuration; FILTER narrows it by test-name substring.
test-one: $(TESTS) $(CLI)
	$(TESTS) $(FILTER)

test:
	@sh tests/run_all.sh

test-sanitize:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" test-one
	$(MAKE) FIXED=1 BUILD=build-asan-fixed OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" test-one

demo: $(CLI)
	$(CLI) demo

bench: $(CLI)
	$(CLI) bench

cross:
	@sh tests/cross.sh

# The determinism matrix (docs/determinism.md): the reference scene's hashes on gcc/clang -O0/-O2/-O3, x86-32, aarch64, armhf.
.PHONY: matrix
matrix:
	@sh tests/matrix.sh

clean:
	rm -rf build build-* 

-include $(RUNTIME_OBJ:.o=.d) $(TOOLS_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BUILD)/obj/tools/main.d

print-tests:
	@echo $(TESTS)

# ---- cooked data (the cooker's block; docs/asset-format.md) ------------------
# `make -j data` cooks every mesh the project ships (data/meshes/*.obj) and the
# shared test meshes (../shared/data/meshes/*.obj) into $(BUILD)/cooked/. A
# mesh NAME also gets data/rigs/NAME.rig and data/poses/NAME.pose when they
# exist, and the extra `crumple cook` options in data/meshes/NAME.cook (one
# line) if that exists. Cooking is deterministic: the same files on every
# machine, so any cache can share them.
COOKED        := $(BUILD)/cooked
SHARED_MESHES ?= ../shared/data/meshes
COOK_FLAGS    ?= --quiet
DATA_CRB      := $(patsubst data/meshes/%.obj,$(COOKED)/%.crb,$(sort $(wildcard data/meshes/*.obj)))
SHARED_CRB    := $(patsubst $(SHARED_MESHES)/%.obj,$(COOKED)/shared/%.crb,$(sort $(wildcard $(SHARED_MESHES)/*.obj)))

data: $(DATA_CRB) $(SHARED_CRB)

.SECONDEXPANSION:
$(COOKED)/shared/%.crb: $(SHARED_MESHES)/%.obj $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) cook $< -o $@ $(COOK_FLAGS)

$(COOKED)/%.crb: data/meshes/%.obj $$(wildcard data/rigs/$$*.rig data/poses/$$*.pose data/meshes/$$*.cook) $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) cook $< -o $@ $(COOK_FLAGS) $(if $(wildcard data/rigs/$*.rig),--rig data/rigs/$*.rig) \
	    $(if $(wildcard data/poses/$*.pose),--poses data/poses/$*.pose) \
	    $(if $(wildcard data/meshes/$*.cook),$(shell cat data/meshes/$*.cook))
