# crumple — one entry point.
#   make                 build/libcrumple.a and build/bin/crumple (float)
#   make FIXED=1         the same in Q32.32 fixed point, in build-fixed/
#   make test            float and fixed suites, -O0 determinism, promise checks (nm)
#   make test-sanitize   the suites under ASan + UBSan, with gcc and with clang (float-cast-overflow)
#   make fuzz            each libFuzzer harness of tests/fuzz/ for FUZZ_SECONDS, both scalar modes
#   make soak            the pile and the demo for SOAK_FRAMES frames, twice, both modes (not in make test)
#   make demo            the README's first command
#   make readme-images   the README's pictures, regenerated from the current demo
#   make dent-guide      docs/dent-tuning.md's picture table (crumple tune)
#   make bench           benchmarks, printed as JSON
#   make install         headers, libcrumple.a + libcrumple-fixed.a, the tool, pkg-config files (PREFIX, DESTDIR)
#   make bench-stages    the dent map's steps (seed 000 Table 1) and the re-skin, timed alone (tests/bench/)
#   make bench-peers     crumple next to Bullet and ODE on the five peer scenes (docs/peers.md)
#   make bench-soft      soft_pile in crumple and in Bullet's btSoftBody (docs/mass-spring.md)
#   make bench-frames    every shipped scene's steps against issue 25's frame budget, float then fixed (docs/frame-budget.md)
#   make bench-queries   rays and overlaps in crumple and Bullet on the same bodies (docs/queries.md)
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

RUNTIME_SRC  := $(sort $(wildcard runtime/src/*/*.c))
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

# Tools and the platform layer see the public API only: runtime/src is not on
# their path (tools/asset_format.h forwards the one shared internal header).
$(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@

$(BUILD)/obj/platform/%.o: platform/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@

# Tests may call internals (cri_*) to check a stage on its own.
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

SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-sanitize:
	$(MAKE) BUILD=build-asan OPT="-O1 -g $(SANITIZE)" test-one
	$(MAKE) FIXED=1 BUILD=build-asan-fixed OPT="-O1 -g $(SANITIZE)" test-one
	@# gcc's UBSan has no float-cast-overflow (a NaN or huge float cast to int): clang's has
	$(MAKE) CC=clang BUILD=build-asan-clang OPT="-O1 -g $(SANITIZE) -fsanitize=float-cast-overflow" test-one
	$(MAKE) CC=clang FIXED=1 BUILD=build-asan-clang-fixed OPT="-O1 -g $(SANITIZE) -fsanitize=float-cast-overflow" test-one

# ---- soak (tests/soak/soak.c; last result in docs/soak.md) --------------------
SOAK_FRAMES ?= 100000
SOAK_SCENES ?= data/scenes/pile.scene data/scenes/demo.scene
.PHONY: soak soak-bin
soak-bin: $(BUILD)/bin/crumple_soak
$(BUILD)/bin/crumple_soak: tests/soak/soak.c $(TOOLS_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Iruntime/src $< $(TOOLS_LIB) $(LIB) -o $@ -lm $(EXTRA_LDFLAGS)
soak:
	$(MAKE) FIXED=0 soak-bin
	$(MAKE) FIXED=1 soak-bin
	build/bin/crumple_soak $(SOAK_FRAMES) $(SOAK_SCENES)
	build-fixed/bin/crumple_soak $(SOAK_FRAMES) $(SOAK_SCENES)

# ---- stage benchmarks (tests/bench/): they time internal stages, so they are not `crumple bench`
.PHONY: bench-stages bench-stages-bin
STAGE_BENCH_SRC := tests/bench/stage_bench.c tests/bench/bench_dent.c tests/bench/bench_example.c tests/bench/bench_bend.c tests/bench/bench_squash.c
bench-stages-bin: $(BUILD)/bin/crumple_stage_bench
$(BUILD)/bin/crumple_stage_bench: $(STAGE_BENCH_SRC) tests/bench/stage_bench.h $(TOOLS_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Iruntime/src $(STAGE_BENCH_SRC) $(TOOLS_LIB) $(LIB) -o $@ -lm $(EXTRA_LDFLAGS)
bench-stages: $(BUILD)/bin/crumple_stage_bench
	$(BUILD)/bin/crumple_stage_bench dent
	$(BUILD)/bin/crumple_stage_bench example
	$(BUILD)/bin/crumple_stage_bench skin
	$(BUILD)/bin/crumple_stage_bench bend
	$(BUILD)/bin/crumple_stage_bench squash

# ---- fuzzing (tests/fuzz/README.md) ------------------------------------------
# libFuzzer harnesses, built with clang in both scalar modes into
# build-fuzz/fuzz/ and build-fuzz-fixed/fuzz/. `make fuzz` runs each for
# FUZZ_SECONDS; `make fuzz-burst` (what `make test` runs) each over its corpus
# plus a fixed-seed burst of a fixed count of executions (tests/fuzz/run.sh).
FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 180
FUZZ_HARNESSES := asset obj scene replay
FUZZ_OPT      := -O1 -g -fsanitize=fuzzer-no-link $(SANITIZE) -fsanitize=float-cast-overflow
.PHONY: fuzz fuzz-bins fuzz-harnesses fuzz-burst
fuzz-harnesses: $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/fuzz_%)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(TOOLS_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -Iruntime/src -fsanitize=fuzzer $< $(TOOLS_LIB) $(LIB) -o $@ -lm
fuzz-bins:
	$(MAKE) CC=$(FUZZ_CC) FIXED=0 BUILD=build-fuzz OPT="$(FUZZ_OPT)" fuzz-harnesses
	$(MAKE) CC=$(FUZZ_CC) FIXED=1 BUILD=build-fuzz-fixed OPT="$(FUZZ_OPT)" fuzz-harnesses
fuzz: fuzz-bins
	sh tests/fuzz/run.sh $(FUZZ_SECONDS) build-fuzz build-fuzz-fixed
fuzz-burst: fuzz-bins
	FUZZ_FRESH=1 FUZZ_FIXED=1 sh tests/fuzz/run.sh 0 build-fuzz build-fuzz-fixed

demo: $(CLI)
	$(CLI) demo

# docs/dent-tuning.md's table: the bunny's ears into the plate with three dent
# distances and three widths (crumple tune, tools/cmd_tune.c).
.PHONY: dent-guide
dent-guide: $(CLI)
	$(CLI) tune data/scenes/dent_bunny.scene -o docs/images/dent_tuning.png --size 240x180

# The README's and docs/render.md's pictures, from the current demo: its
# contact sheet and the two dent close-ups.
.PHONY: readme-images
readme-images: $(CLI)
	$(CLI) demo --out $(BUILD)/demo
	cp $(BUILD)/demo/sheet.png docs/images/demo_sheet.png
	cp $(BUILD)/demo/dent_anvil.png docs/images/dent_ball_block.png
	cp $(BUILD)/demo/dent_plate.png docs/images/dent_bunny_plate.png
	cp $(BUILD)/demo/squash_jelly.png $(BUILD)/demo/squash_jelly_closeup.png docs/images/

bench: $(CLI)
	$(CLI) bench

# ---- the frame benchmark (tools/bench_frames.c; last table in docs/frame-budget.md)
# Both scalar modes' tools, then one table each: every data/scenes/*.scene (or
# FRAMES_SCENES) for its own frames, FRAMES_REPEAT runs with each step's minimum
# time. FRAMES_FLAGS adds options (e.g. --steps 60, --json). Writes only build*/.
FRAMES_REPEAT ?= 3
FRAMES_SCENES ?=
FRAMES_FLAGS  ?=
.PHONY: bench-frames
bench-frames:
	$(MAKE) FIXED=0 BUILD=build cli
	$(MAKE) FIXED=1 BUILD=build-fixed cli
	build/bin/crumple bench frames --repeat $(FRAMES_REPEAT) $(FRAMES_FLAGS) $(FRAMES_SCENES)
	@echo
	build-fixed/bin/crumple bench frames --repeat $(FRAMES_REPEAT) $(FRAMES_FLAGS) $(FRAMES_SCENES)

# ---- install (tests/check_install.sh) -----------------------------------------
# `make install PREFIX=/usr/local DESTDIR=` builds both scalar modes and puts in
# PREFIX: include/crumple/*.h, lib/libcrumple.a (float32) and
# lib/libcrumple-fixed.a (Q32.32), bin/crumple (the float tool) and
# lib/pkgconfig/crumple.pc, crumple-fixed.pc. A game then needs only
#     cc game.c $$(pkg-config --cflags --libs crumple)
# DESTDIR stages the files for a package (the .pc files still say PREFIX).
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_FLOAT ?= build
INSTALL_FIXED ?= build-fixed
CR_VERSION = $(shell sed -n 's/^\#define CR_VERSION_STRING "\(.*\)"/\1/p' runtime/include/crumple/base.h)
INSTALL_ROOT = $(DESTDIR)$(PREFIX)
.PHONY: install uninstall
install:
	$(MAKE) FIXED=0 BUILD=$(INSTALL_FLOAT) lib cli
	$(MAKE) FIXED=1 BUILD=$(INSTALL_FIXED) lib
	mkdir -p $(INSTALL_ROOT)/include/crumple $(INSTALL_ROOT)/lib/pkgconfig $(INSTALL_ROOT)/bin
	cp runtime/include/crumple/*.h $(INSTALL_ROOT)/include/crumple/
	cp $(INSTALL_FLOAT)/libcrumple.a $(INSTALL_ROOT)/lib/libcrumple.a
	cp $(INSTALL_FIXED)/libcrumple.a $(INSTALL_ROOT)/lib/libcrumple-fixed.a
	cp $(INSTALL_FLOAT)/bin/crumple $(INSTALL_ROOT)/bin/crumple
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@NAME@|crumple|' -e 's|@MODE@|float32|' -e 's|@FIXED@|0|' \
	    -e 's|@VERSION@|$(CR_VERSION)|' -e '/^#/d' tools/crumple.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/crumple.pc
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@NAME@|crumple-fixed|' -e 's|@MODE@|fixed-point Q32.32|' -e 's|@FIXED@|1|' \
	    -e 's|@VERSION@|$(CR_VERSION)|' -e '/^#/d' tools/crumple.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/crumple-fixed.pc
uninstall:
	rm -f $(INSTALL_ROOT)/include/crumple/*.h $(INSTALL_ROOT)/lib/libcrumple.a $(INSTALL_ROOT)/lib/libcrumple-fixed.a \
	    $(INSTALL_ROOT)/bin/crumple $(INSTALL_ROOT)/lib/pkgconfig/crumple.pc $(INSTALL_ROOT)/lib/pkgconfig/crumple-fixed.pc
	-rmdir $(INSTALL_ROOT)/include/crumple

# ---- the peer table (docs/peers.md) -------------------------------------------
# Bullet and ODE on the peers' own scenes (../shared/peer-scenes.md), interleaved
# with crumple in one run. Needs g++, pkg-config, libbullet-dev and libode-dev
# (tools/setup-debian.sh): benchmark dependencies only, never the runtime's.
# PEER_ROUNDS runs of each (default 3); PEER_SCENES narrows the scenes.
PEER_DIR    := $(BUILD)/peers
PEER_ROUNDS ?= 3
PEER_SCENES ?=
PEER_CXX    ?= g++
PEER_FLAGS  := -O2 -Wall -Wextra -Werror
PEER_SCENE_FILES := $(foreach s,pile stack incline rings terrain,data/scenes/peer_$(s).scene)
.PHONY: bench-peers
$(PEER_DIR)/bullet_peer: tests/peers/bullet_peer.cpp tests/peers/peer_common.h
	@mkdir -p $(dir $@)
	$(PEER_CXX) $(PEER_FLAGS) $$(pkg-config --cflags-only-I bullet | sed 's/-I/-isystem /g') $< -o $@ $$(pkg-config --libs bullet)
$(PEER_DIR)/ode_peer: tests/peers/ode_peer.c tests/peers/peer_common.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(PEER_FLAGS) $$(pkg-config --cflags ode) $< -o $@ $$(pkg-config --libs ode) -lm
# The scene files and terrain meshes are committed; this writes them again (unchanged
# unless the generator changed) and the peers' layouts next to the programs.
$(PEER_DIR)/layout/pile.txt: tests/peers/peer_scenes.py
	python3 tests/peers/peer_scenes.py data/scenes data/meshes $(PEER_DIR)/layout
bench-peers: $(CLI) $(PEER_DIR)/bullet_peer $(PEER_DIR)/ode_peer $(PEER_DIR)/layout/pile.txt
	python3 tests/peers/bench_peers.py $(CLI) $(PEER_DIR)/bullet_peer $(PEER_DIR)/ode_peer $(PEER_DIR)/layout data/scenes $(PEER_ROUNDS) $(PEER_SCENES)

# issue 27's query benchmark: crumple's rays and overlaps beside Bullet's on the same bodies (docs/queries.md)
.PHONY: bench-queries
bench-queries: $(CLI) $(PEER_DIR)/bullet_peer
	python3 tests/peers/bench_queries.py $(CLI) $(PEER_DIR)/bullet_peer $(PEER_DIR)

# issue 16's soft_pile in crumple and in Bullet's btSoftBody, same meshes (docs/mass-spring.md)
.PHONY: bench-soft
$(PEER_DIR)/bullet_soft_peer: tests/peers/bullet_soft_peer.cpp
	@mkdir -p $(dir $@)
	$(PEER_CXX) $(PEER_FLAGS) $$(pkg-config --cflags-only-I bullet | sed 's/-I/-isystem /g') $< -o $@ $$(pkg-config --libs bullet)
bench-soft: $(CLI) $(PEER_DIR)/bullet_soft_peer
	$(CLI) bench soft --export $(PEER_DIR)/soft_pile.txt
	$(CLI) bench soft --awake
	$(CLI) bench soft --awake --spheres
	$(PEER_DIR)/bullet_soft_peer $(PEER_DIR)/soft_pile.txt

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
# `make -j data` cooks every mesh the project ships (data/meshes/*.obj, the
# public test meshes among them: data/meshes/README.md) into $(BUILD)/cooked/. A
# mesh NAME also gets data/rigs/NAME.rig and data/poses/NAME.pose when they
# exist, and the extra `crumple cook` options in data/meshes/NAME.cook (one
# line) if that exists. Cooking is deterministic: the same files on every
# machine, so any cache can share them.
COOKED        := $(BUILD)/cooked
COOK_FLAGS    ?= --quiet
DATA_CRB      := $(patsubst data/meshes/%.obj,$(COOKED)/%.crb,$(sort $(wildcard data/meshes/*.obj)))

data: $(DATA_CRB)

# The plastic assets of issue 13 (mesh, rig, poses, cook options) are made by
# `crumple gen barrel|car` (tools/gen_plastic.c) before they are cooked; a file
# whose bytes are already the generator's is left alone, so nothing recooks.
PLASTIC_GEN := barrel car
.PHONY: gen-plastic
gen-plastic: $(CLI)
	@for a in $(PLASTIC_GEN); do $(CLI) gen $$a --dir data || exit 1; done
$(PLASTIC_GEN:%=$(COOKED)/%.crb): | gen-plastic

.SECONDEXPANSION:
$(COOKED)/%.crb: data/meshes/%.obj $$(wildcard data/rigs/$$*.rig data/poses/$$*.pose data/meshes/$$*.cook) $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) cook $< -o $@ $(COOK_FLAGS) $(if $(wildcard data/rigs/$*.rig),--rig data/rigs/$*.rig) \
	    $(if $(wildcard data/poses/$*.pose),--poses data/poses/$*.pose) \
	    $(if $(wildcard data/meshes/$*.cook),$(shell cat data/meshes/$*.cook))
