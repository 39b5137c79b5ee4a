# warpalign: `make demo` builds everything and runs the main job; `make test` runs the tests.
# Everything lands under target/: vendor/ (pinned upstream sources), dist/ (the library as installed:
# lib/, include/, lib/pkgconfig/), build/ (tool builds) and tools/ (the four binaries and their GPU kernels).

SHELL      := bash
CARGO      ?= cargo
JOBS       ?= $(shell nproc)
T          := target
VENDOR     := $(T)/vendor/src
DIST       := $(T)/dist
TOOLS      := $(T)/tools
VERSION    := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
# the shared library's file name and SONAME (capi/build.rs): MAJOR.MINOR, as the ABI may change before 1.0
SONAME     := libwarpalign.so.$(basename $(VERSION))
export PKG_CONFIG_PATH := $(CURDIR)/$(DIST)/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

RUST_SRC   := $(shell find src capi/src capi/include ffi kernels -type f) Cargo.toml capi/Cargo.toml capi/build.rs capi/warpalign.pc.in

.PHONY: all deps vendor lib tools demo test bench-pack install tarball clean
all: tools

# System packages the build needs (Debian/Ubuntu); installs them when run as root, else names them.
deps:
	@tests/ensure-deps

vendor: $(VENDOR)/minimap2/Makefile $(VENDOR)/lastz/Makefile
$(VENDOR)/minimap2/Makefile $(VENDOR)/lastz/Makefile &: vendor/manifest.tsv vendor/fetch
	vendor/fetch $(T)/vendor
	touch $(VENDOR)/minimap2/Makefile $(VENDOR)/lastz/Makefile

# lib/ holds the archive and the shared library under its SONAME only, without the `libwarpalign.so` link:
# `-lwarpalign` (what warpalign.pc says) then links the archive, a program that starts wherever it is;
# a program that wants the shared library names it (`-l:$(SONAME)`) and finds it at run time as any other.
lib: $(DIST)/lib/libwarpalign.a
$(DIST)/lib/libwarpalign.a: $(RUST_SRC) | vendor
	$(CARGO) build --release -p warpalign-capi
	mkdir -p $(DIST)/lib/pkgconfig $(DIST)/include
	rm -f $(DIST)/lib/libwarpalign.so*
	cp $(T)/release/libwarpalign_capi.so $(DIST)/lib/$(SONAME)
	cp capi/include/warpalign.h $(DIST)/include/
	sed -e 's|@PREFIX@|$(CURDIR)/$(DIST)|' -e 's|@VERSION@|$(VERSION)|' capi/warpalign.pc.in > $(DIST)/lib/pkgconfig/warpalign.pc
	cp $(T)/release/libwarpalign_capi.a $@

tools: $(TOOLS)/minimap2 $(TOOLS)/minimap2-ref $(TOOLS)/lastz $(TOOLS)/lastz-ref $(TOOLS)/warpalign-kernels

# The GPU kernels compiled for these architectures, beside the tools (which read them there): a tool's first
# run on a machine then compiles nothing (about 6 s). Without NVRTC here the folder stays empty, and the tools
# compile their kernels at their first run on a GPU (`tests/gpu.rs` still checks every kernel compiles).
KERNEL_ARCHS ?= sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
$(TOOLS)/warpalign-kernels: $(RUST_SRC)
	$(CARGO) build --release -p warpalign --bin warpalign-kernels
	rm -rf $@ && mkdir -p $@
	nvrtc=$$(tests/nvrtc-path); LD_LIBRARY_PATH="$${nvrtc:+$$nvrtc:}$$LD_LIBRARY_PATH" \
	  $(T)/release/warpalign-kernels $@ $(KERNEL_ARCHS) || { rc=$$?; [ $$rc = 3 ] || { rm -rf $@; exit $$rc; }; \
	  echo "make: no GPU kernels compiled here (no NVRTC); the tools compile them at their first run"; }

# Reference builds: the pinned sources exactly as fetched, built with upstream's own Makefiles.
$(TOOLS)/minimap2-ref: | vendor
	rm -rf $(T)/build/minimap2-ref && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/minimap2 $(T)/build/minimap2-ref
	$(MAKE) -s -C $(T)/build/minimap2-ref -j$(JOBS) minimap2
	cp $(T)/build/minimap2-ref/minimap2 $@

$(TOOLS)/lastz-ref: | vendor
	rm -rf $(T)/build/lastz-ref && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/lastz $(T)/build/lastz-ref
	$(MAKE) -s -C $(T)/build/lastz-ref/src -j$(JOBS) lastz lastz_D
	cp $(T)/build/lastz-ref/src/lastz_D $(TOOLS)/lastz_D-ref
	cp $(T)/build/lastz-ref/src/lastz $@

# The reference with upstream's own timers of its stages and of gapped_extend's anchor loop (its dbgTiming and
# dbgTimingGappedExtend build flags, nothing else changed), for bench/lastz's stage times; it prints them to
# stderr at exit.
$(TOOLS)/lastz-ref-timed: | vendor
	rm -rf $(T)/build/lastz-ref-timed && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/lastz $(T)/build/lastz-ref-timed
	d=$(T)/build/lastz-ref-timed/src; $(MAKE) -s -C $$d -j$(JOBS) lastz \
		definedForAll="$$(sed -n 's/^definedForAll *= *//p' $$d/Makefile) -DdbgTimingGappedExtend -DdbgTiming"
	cp $(T)/build/lastz-ref-timed/src/lastz $@

# The rebuilt LASTZ with upstream's stage timers (dbgTiming, nothing else changed): its stages against the
# reference's in bench/lastz, each timed by the same code.
$(TOOLS)/lastz-timed: $(DIST)/lib/libwarpalign.a $(wildcard patches/lastz/*) $(shell find glue/lastz -type f) patches/apply | vendor
	rm -rf $(T)/build/lastz-timed && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/lastz $(T)/build/lastz-timed
	patches/apply lastz $(T)/build/lastz-timed
	d=$(T)/build/lastz-timed/src; $(MAKE) -s -C $$d -j$(JOBS) lastz \
		definedForAll="$$(sed -n 's/^definedForAll *= *//p' $$d/Makefile) -DdbgTiming" \
		WARPALIGN_CFLAGS="$$(pkg-config --cflags warpalign)" \
		WARPALIGN_LIBS="$$(pkg-config --static --libs warpalign | sed 's/-lwarpalign/-l:libwarpalign.a/')"
	cp $(T)/build/lastz-timed/src/lastz $@

# lastz_D (double scores) is built beside lastz for LASTZ's float base test; warpalign routes only the
# integer build's calls, so the patched lastz_D runs upstream's DP.
# Patched builds: the same sources with patches/<tool>/ applied, linked with libwarpalign.a (pkg-config).
$(TOOLS)/minimap2: $(DIST)/lib/libwarpalign.a $(wildcard patches/minimap2/* glue/minimap2/*) patches/apply | vendor
	rm -rf $(T)/build/minimap2 && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/minimap2 $(T)/build/minimap2
	patches/apply minimap2 $(T)/build/minimap2
	$(MAKE) -s -C $(T)/build/minimap2 -j$(JOBS) minimap2 \
		WARPALIGN_CFLAGS="$$(pkg-config --cflags warpalign)" \
		WARPALIGN_LIBS="$$(pkg-config --static --libs warpalign | sed 's/-lwarpalign/-l:libwarpalign.a/')"
	cp $(T)/build/minimap2/minimap2 $@

$(TOOLS)/lastz: $(DIST)/lib/libwarpalign.a $(wildcard patches/lastz/*) $(shell find glue/lastz -type f) patches/apply | vendor
	rm -rf $(T)/build/lastz && mkdir -p $(T)/build $(TOOLS)
	cp -r $(VENDOR)/lastz $(T)/build/lastz
	patches/apply lastz $(T)/build/lastz
	$(MAKE) -s -C $(T)/build/lastz/src -j$(JOBS) lastz lastz_D \
		WARPALIGN_CFLAGS="$$(pkg-config --cflags warpalign)" \
		WARPALIGN_LIBS="$$(pkg-config --static --libs warpalign | sed 's/-lwarpalign/-l:libwarpalign.a/')"
	cp $(T)/build/lastz/src/lastz_D $(TOOLS)/lastz_D
	cp $(T)/build/lastz/src/lastz $@

# `make install [PREFIX=/usr/local] [DESTDIR=]`: bin/ (the rebuilt minimap2, lastz, lastz_D), lib/ (the archive,
# the shared library under its SONAME, pkgconfig/warpalign.pc pointing at PREFIX), include/warpalign.h,
# share/warpalign/kernels/ (the GPU kernels, where the installed tools look) and share/doc/warpalign/.
# The tools link the archive: they need nothing from lib/ at run time.
PREFIX    ?= /usr/local
PC_PREFIX ?= $(PREFIX)
install: tools lib
	d='$(DESTDIR)$(PREFIX)'; set -e; \
	install -d "$$d/bin" "$$d/lib/pkgconfig" "$$d/include" "$$d/share/warpalign/kernels" "$$d/share/doc/warpalign/docs"; \
	install -m 755 $(TOOLS)/minimap2 $(TOOLS)/lastz $(TOOLS)/lastz_D "$$d/bin/"; \
	install -m 644 $(DIST)/lib/libwarpalign.a "$$d/lib/"; \
	install -m 755 $(DIST)/lib/$(SONAME) "$$d/lib/"; \
	install -m 644 $(DIST)/include/warpalign.h "$$d/include/"; \
	sed -e 's|@PREFIX@|$(PC_PREFIX)|' -e 's|@VERSION@|$(VERSION)|' capi/warpalign.pc.in > "$$d/lib/pkgconfig/warpalign.pc"; \
	find $(TOOLS)/warpalign-kernels -name '*.cubin' -exec install -m 644 {} "$$d/share/warpalign/kernels/" \; ; \
	install -m 644 README.md "$$d/share/doc/warpalign/"; \
	install -m 644 docs/*.md "$$d/share/doc/warpalign/docs/"

# A relocatable tarball of the same tree: unpacked anywhere, its tools run and its warpalign.pc (its prefix is
# pkg-config's pcfiledir/../..) points at wherever it lies.
TARBALL := $(T)/warpalign-$(VERSION)-linux-$(shell uname -m).tar.gz
tarball: tools lib
	rm -rf $(T)/stage
	$(MAKE) -s install DESTDIR=$(CURDIR)/$(T)/stage PREFIX=/warpalign-$(VERSION) PC_PREFIX='$$$${pcfiledir}/../..'
	tar -C $(T)/stage -czf $(TARBALL) warpalign-$(VERSION)
	rm -rf $(T)/stage
	@echo "$(TARBALL)"

demo: deps tools
	bench/demo

test: deps tools
	tests/run

# Everything bench/run and bench/chain-real need on the GPU machine (no cargo there, 64 MiB carried per call): the
# four tools (and the timed LASTZ reference) and bench's gen/measure/plot/chain, stripped, and the small real inputs they grow workloads from.
WARPALIGN_DATA ?= $(CURDIR)/../shared/data
BENCH_CARRY    := $(T)/benchcarry
BENCH_DATA     := ref/ecoli_K12_MG1655.fasta.gz ont/ecoli_ultralong_R9_nanotest.fastq.gz \
                  ont/ecoli_R9_medaka_test_reads.fasta.gz pacbio/ecoli_sequel_clr_subreads.fastq.gz \
                  wga/hpylori_G27.fasta.gz wga/hpylori_SJM180.fasta.gz wga/B_anthracis_Mslice.fasta.gz \
                  wga/D_melanogaster_2Rslice.fasta.gz lambda/lambda_NC_001416.fasta.gz \
                  lambda/lambda_ont_R7_2D_ERA476754.fastq.gz wga/MT-human.fa wga/MT-orang.fa \
                  wga/dwv_NC_004830.fasta.gz wga/vdv1_NC_006494.fasta.gz wga/D_pseudoobscura_contigs.fasta.gz \
                  wga/B_anthracis_contigs.fasta.gz
bench-pack: tools $(TOOLS)/lastz-ref-timed $(TOOLS)/lastz-timed
	$(CARGO) build --release -p warpalign-bench --bin gen --bin measure --bin plot --bin chain --bin gpustart
	rm -rf $(BENCH_CARRY) && mkdir -p $(BENCH_CARRY)/tools $(BENCH_CARRY)/bin $(BENCH_CARRY)/data
	for t in minimap2 minimap2-ref lastz lastz-ref lastz-ref-timed lastz-timed; do strip -o $(BENCH_CARRY)/tools/$$t $(TOOLS)/$$t; done
	cp -r $(TOOLS)/warpalign-kernels $(BENCH_CARRY)/tools/
	for b in gen measure plot chain gpustart; do strip -o $(BENCH_CARRY)/bin/$$b $(T)/release/$$b; done
	for f in $(BENCH_DATA); do cp $(WARPALIGN_DATA)/$$f $(BENCH_CARRY)/data/ || exit 1; done
	@size=$$(du -sb $(BENCH_CARRY) | cut -f1); echo "$(BENCH_CARRY): $$((size / 1024)) KiB"; \
	  [ $$size -lt 67108864 ] || { echo "bench-pack: over the 64 MiB a device call carries" >&2; exit 1; }

clean:
	rm -rf $(T)/build $(TOOLS) $(DIST)
