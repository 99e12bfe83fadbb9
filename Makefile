# The README's commands. `make demo` and `make test` do all set-up on a fresh Debian machine with Swift.
SWIFT ?= swift
DEMO_DIR := $(or $(TMPDIR),/tmp)/docpkg-demo
PREFIX ?= /usr/local
CONFIGURATION ?= release
# Extra SwiftPM options for man and install (the install test passes --ignore-lock: it runs inside `swift test`).
SWIFT_FLAGS ?=
# Release builds of the tools link the Swift runtime and Foundation statically: a start then loads and relocates
# no Swift shared libraries (issue 14 row 7: `docpkg --version` 3.8 ms instead of 5.4 ms, fastest runs at load 6).
RELEASE_FLAGS ?= --static-swift-stdlib
INSTALL_FLAGS := $(if $(filter release,$(CONFIGURATION)),$(RELEASE_FLAGS))
# Installed binaries are stripped of their symbols (docpkg 50 MB -> 21 MB); STRIP= keeps them.
STRIP ?= -s
MAN_PAGE := .build/plugins/GenerateManual/outputs/docpkg/docpkg.1
# The test bundle. Built as a product, it needs only what the test targets link: without DOCPKG_NETWORK_TESTS=1
# (see Package.swift) neither docpkg-sync nor its HTTP and TLS stack, which `swift build --build-tests` would build too.
BUILD_TESTS := $(SWIFT) build --product DocumentPackagePackageTests
# The same with DOCPKG_NETWORK_TESTS=1, which declares DocumentSyncTests and PackageServerTests, the tests of
# docpkg-sync and its libraries (make sync-test, make serve-test, make fs-test), and runs them once built.
BUILD_NETWORK_TESTS := DOCPKG_NETWORK_TESTS=1 $(BUILD_TESTS)
RUN_NETWORK_TESTS := DOCPKG_NETWORK_TESTS=1 $(SWIFT) test --skip-build

.PHONY: setup build release demo test interop format format-check crash-test crash-sweeps bench clean man install docs docs-test serve-test

setup:
	@Scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product docpkg
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product docpkg-sync

## Generates the man page docpkg.1 from docpkg's argument definitions (ArgumentParser's generate-manual plugin).
man: setup
	$(SWIFT) package $(SWIFT_FLAGS) plugin generate-manual --configuration $(CONFIGURATION)

## Installs docpkg, its man page and its bash, zsh and fish completions under $(DESTDIR)$(PREFIX).
install: man
	$(SWIFT) build $(SWIFT_FLAGS) -c $(CONFIGURATION) $(INSTALL_FLAGS) --product docpkg
	$(SWIFT) build $(SWIFT_FLAGS) -c $(CONFIGURATION) $(INSTALL_FLAGS) --product docpkg-sync
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(STRIP) .build/$(CONFIGURATION)/docpkg $(DESTDIR)$(PREFIX)/bin/docpkg
	install -m 755 $(STRIP) .build/$(CONFIGURATION)/docpkg-sync $(DESTDIR)$(PREFIX)/bin/docpkg-sync
	install -m 644 $(MAN_PAGE) $(DESTDIR)$(PREFIX)/share/man/man1/docpkg.1
	.build/$(CONFIGURATION)/docpkg --generate-completion-script bash \
	  > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docpkg
	.build/$(CONFIGURATION)/docpkg --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docpkg
	.build/$(CONFIGURATION)/docpkg --generate-completion-script fish \
	  > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/docpkg.fish

## Builds the DocC documentation of DocumentPackage, DocumentArchive and DocumentSync as one static site in $(DOCS_DIR)
## (swift-docc-plugin); any DocC warning fails the build.
DOCS_DIR := .build/docs
docs: setup
	$(SWIFT) package $(SWIFT_FLAGS) --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
	  --target DocumentPackage --target DocumentArchive --target DocumentSync --enable-experimental-combined-documentation \
	  --output-path $(DOCS_DIR) --transform-for-static-hosting --warnings-as-errors

## Builds the documentation, then opens it in headless Chromium (installed when missing) and checks that the
## PackageNode page renders: the DocsTests suite, which `make test` skips. With DOCS_BUILT=1, uses the pages a
## `make docs` already made. CI runs it with DOCPKG_NETWORK_TESTS=1 after the network tests, whose build then serves
## both the documentation (its dependencies) and the DocsTests (the same test bundle, not relinked).
docs-test: $(if $(DOCS_BUILT),,docs)
	Scripts/setup.sh --docs
	$(BUILD_TESTS)
	DOCPKG_DOCS=$(DOCS_DIR) $(SWIFT) test --skip-build --filter DocsTests

## `docpkg serve`'s tests (PackageServerTests, declared with DOCPKG_NETWORK_TESTS=1: the server lives in docpkg-sync),
## with its page in headless Chromium (installed when missing), driven through the DevTools protocol (BrowserTests).
## SCREENSHOTS=DIR also saves the README's screenshots there.
## The suites that measure the test process's resident memory, or a response time, run after the others, each in a
## process of its own: the servers run in it, and other suites' allocations and work beside them would count as theirs.
SERVE_MEMORY_SUITES := ConnectionLimitsTests|BackPressureTests|AbandonedWorkTests
serve-test: setup
	Scripts/setup.sh --docs
	$(BUILD_NETWORK_TESTS)
	DOCPKG_BROWSER=1 $(if $(SCREENSHOTS),DOCPKG_SCREENSHOTS=$(abspath $(SCREENSHOTS))) \
	  $(RUN_NETWORK_TESTS) --filter PackageServerTests --skip "$(SERVE_MEMORY_SUITES)"
	$(foreach suite,$(subst |, ,$(SERVE_MEMORY_SUITES)),$(RUN_NETWORK_TESTS) --filter $(suite) &&) true

## Runs docpkg on the shipped example package. Builds docpkg alone: the demo does not sync, and docpkg-sync's
## HTTP and TLS stack is most of a first build.
## DEMO_SCRATCH=DIR builds it in a scratch path of its own (CI builds it there in the background, beside other steps).
DEMO_SCRATCH ?= .build
.PHONY: demo-build
demo-build: setup
	$(SWIFT) build --scratch-path $(DEMO_SCRATCH) -c release $(RELEASE_FLAGS) --product docpkg

demo: demo-build
	@Scripts/demo.sh $(DEMO_SCRATCH)/release/docpkg $(DEMO_DIR)

## Checks that libc is called only from the system layer, then builds (failing on a warning in our code) and runs the test suite (Swift Testing) of
## DocumentPackage, DocumentArchive, docpkg and the examples, including CLI, crash and interop tests. The tests of
## DocumentSync and docpkg-sync run with a real object store: `make sync-test`.
## LongPathMonitorTests floods its process's one inotify instance (300 files, 14 folders of 255-byte names deep) and
## runs in a process of its own: once, beside it at load 25, every other monitor suite waited for its events in vain.
## DeepSaveReactionTests (a watching document's own save 1,000 folders deep) does the same and runs alone too.
## DocumentRelativePathTests changes the process's current folder (a document opened by a bare name) and runs alone.
## DOCPKG_REQUIRE_CORPUS=1: other projects' test archives (Go's and Python's, which setup installs; libarchive's,
## committed in Tests/Corpora/libarchive) must be there (ArchiveDifferentialTests).
## Its tests that kill a command at each of its steps one run after another take the crash sweeps' seeded sample of
## them (CRASH_SAMPLE, below; Tests/TestSupport/KillSample.swift); CRASH_SAMPLE=1 takes every one.
## With DOCPKG_NETWORK_TESTS=1 in the environment (CI), it builds the network form of the test bundle, which the later
## steps then use as it is, and leaves out the suites that need a store or a browser (their own steps run them).
ALONE_TEST_SUITES := LongPathMonitorTests|DeepSaveReactionTests|DocumentRelativePathTests
NETWORK_SUITES := DocumentSyncTests|PackageServerTests
test: setup
	Scripts/check-layering.sh
	Scripts/without-warnings.sh $(BUILD_TESTS)
	DOCPKG_REQUIRE_CORPUS=1 $(CRASH_SAMPLING) $(SWIFT) test --skip-build \
	  --skip "$(ALONE_TEST_SUITES)$(if $(filter 1,$(DOCPKG_NETWORK_TESTS)),|$(NETWORK_SUITES))"
	$(foreach suite,$(subst |, ,$(ALONE_TEST_SUITES)),$(SWIFT) test --skip-build --filter $(suite) &&) true

## The crash sweeps of the test suite (Tests/Scripts/crash-test.py --quick: `put`, `rm`, a restore and a settle
## killed at every step, with and without the exchange; errors injected): `make test` skips them, `.ci/run` runs them.
## They kill at a seeded sample of the steps, CRASH_SAMPLE of them (each run a new seed, printed with a failure;
## CRASH_SEED=S repeats one); `make crash-sweeps CRASH_SAMPLE=1` and `make crash-test` kill at every step.
CRASH_SAMPLE ?= 0.5
CRASH_SEED ?=
## SWEEP_DOCPKG=PATH: the docpkg the sweeps' scripts run instead of the debug build's (CI: the release build made for
## the demo, which runs their thousands of commands about three times faster; the same sources).
SWEEP_DOCPKG ?=
CRASH_SAMPLING = DOCPKG_CRASH_SAMPLE=$(CRASH_SAMPLE) $(if $(CRASH_SEED),DOCPKG_CRASH_SEED=$(CRASH_SEED)) \
  $(if $(SWEEP_DOCPKG),DOCPKG_SWEEP_BINARY=$(abspath $(SWEEP_DOCPKG)))
CRASH_SWEEP_TESTS := killedAtEvery|injectedErrors|InterleavedAtEachStep|UnderLoad|RenamedAtEachStep|RenamedAfterAJournaled|RenamedDuringARestore|MovedWithItsStore
crash-sweeps: setup
	$(BUILD_TESTS)
	$(CRASH_SAMPLING) DOCPKG_CRASH_SWEEPS=1 $(SWIFT) test --skip-build --filter "$(CRASH_SWEEP_TESTS)"

## The long forms of what `make test` and `make crash-sweeps` sample: versions under load (issue 35): 10 minutes of
## writers, settles, readers and kills of settles with both cores and the disk busy (Tests/Scripts/version-stress.py;
## then 5 more with saves killed too, --kill-writers); every step of a save and of a settle interleaved (Tests/Scripts/settle-interleaving.py);
## a package renamed at every step of a journaled save, after a killed one, and during an exchange
## (Tests/Scripts/moved-while-saving.py); every scenario of the
## crash test killed at each step with a pending version waiting (crash-test.py --pending), and again after another
## program changed two files in ways only their change times show (--hidden-change); versions of a package
## 1,000 directories deep (the DeepTree suite); the randomized Document model tests (issue 36), flat and with nested
## folders and other programs' changes, at 10,000 steps per seed instead of `make test`'s 1,000 (flat) and 300
## (nested; seeds 36 to 40 instead of 36 and 40).
.PHONY: stress
stress: setup
	$(BUILD_TESTS)
	python3 Tests/Scripts/version-stress.py --docpkg .build/debug/docpkg --seconds 600
	python3 Tests/Scripts/version-stress.py --docpkg .build/debug/docpkg --seconds 300 --kill-writers
	python3 Tests/Scripts/settle-interleaving.py --docpkg .build/debug/docpkg --points 0 --kill
	python3 Tests/Scripts/moved-while-saving.py --docpkg .build/debug/docpkg
	python3 Tests/Scripts/moved-while-saving.py --docpkg .build/debug/docpkg --kill
	python3 Tests/Scripts/moved-while-saving.py --docpkg .build/debug/docpkg --exchange
	python3 Tests/Scripts/crash-test.py --docpkg .build/debug/docpkg --pending
	python3 Tests/Scripts/crash-test.py --docpkg .build/debug/docpkg --pending --hidden-change
	DOCPKG_DEEP_TREE_DEPTH=1000 $(SWIFT) test --skip-build --filter DeepTree
	DOCPKG_STRESS=1 $(SWIFT) test --skip-build --filter DocumentModelRandomizedTests
	DOCPKG_STRESS=1 DOCPKG_MODEL_NESTED=1 $(SWIFT) test --skip-build --filter DocumentNestedModelRandomizedTests

## Sync against a real object store: starts a one-node Ceph cluster and its S3 gateway on loopback
## (Scripts/objectstore.sh, installs Debian's ceph-mon/ceph-osd/radosgw once), runs the DocumentSync tests
## with its endpoint and keys in the environment, and stops it (also when the tests fail). DocumentSyncTests also
## holds the tests of docpkg-sync that need no server (the hand-over from docpkg, `make install`, signing vectors).
.PHONY: sync-test
sync-test: setup
	$(BUILD_NETWORK_TESTS)
	@env="$$(Scripts/objectstore.sh start)" && eval "$$env" && \
	  { $(RUN_NETWORK_TESTS) --filter DocumentSyncTests; status=$$?; Scripts/objectstore.sh stop; exit $$status; }

## Real file systems (issue 24): mounts exFAT (exfat-fuse), FAT (fusefat), sshfs to a local sshd, overlayfs, btrfs
## and xfs (Scripts/filesystems.sh: root; installs them from Debian), runs the FileSystemTests suite on each (the
## walkthrough, a crash sweep of a save, the overlay's lower layer), and unmounts them (also when the tests fail).
.PHONY: fs-test sweeps
FS_TESTS := FileSystem|SyncNameTests
fs-test: setup
	$(BUILD_NETWORK_TESTS)
	@env="$$(Scripts/filesystems.sh start)" && eval "$$env" && \
	  { $(CRASH_SAMPLING) $(RUN_NETWORK_TESTS) --filter "$(FS_TESTS)"; status=$$?; Scripts/filesystems.sh stop; exit $$status; }

## CI's form of `make crash-sweeps` and `make fs-test`: both in one test process on the network build, side by side.
## Their scripts wait on paused and killed processes, strace, the FUSE daemons and the disk more than they compute:
## one after the other they left a core idle for most of 20 minutes. WatchFileSystemTests times a report on sshfs
## (under 4 s) and runs after the others, alone, the mounts still up.
FS_TIMED_TESTS := WatchFileSystemTests
sweeps: setup
	$(BUILD_NETWORK_TESTS)
	@env="$$(Scripts/filesystems.sh start)" && eval "$$env" && \
	  { $(CRASH_SAMPLING) DOCPKG_CRASH_SWEEPS=1 $(RUN_NETWORK_TESTS) --filter "$(CRASH_SWEEP_TESTS)|$(FS_TESTS)" \
	      --skip "$(FS_TIMED_TESTS)" && $(RUN_NETWORK_TESTS) --filter "$(FS_TIMED_TESTS)"; \
	    status=$$?; Scripts/filesystems.sh stop; exit $$status; }

## Formats the Swift sources with swift-format and the committed .swift-format.
format:
	@Scripts/format.sh

## Fails if swift-format would change any Swift source (CI runs it).
format-check:
	@Scripts/format.sh --check

## Real clients on document packages (LibreOffice, pdftotext, pandoc, epubcheck, unzip, bsdtar, Python, jar):
## the RealClientTests suite, which `make test` skips (LibreOffice and the JVM take a while). Installs them first.
interop: setup
	Scripts/setup.sh --interop
	$(BUILD_TESTS)
	DOCPKG_INTEROP=1 $(SWIFT) test --skip-build --filter RealClientTests

## Kills `docpkg put`/`rm` at every mutating system call, injects EIO/ENOSPC, runs 2 x 100 concurrent puts, and
## kills `docpkg pack`/`unpack` of a 100 MB package at random moments (minutes).
crash-test: build
	python3 Tests/Scripts/crash-test.py --errors --concurrency 100
	python3 Tests/Scripts/crash-test.py --fallback --errors
	python3 Tests/Scripts/archive-kill-test.py --size-mb 100 --runs 6

## Fuzzing (Tests/Fuzz/README.md): builds the libFuzzer targets with AddressSanitizer in .build-fuzz, then runs
## each for its share of FUZZ_SECONDS (FUZZ_TARGETS: zip tar unpack records sync serve, all by default) and prints its executions.
## Fails if a target crashed, hung, leaked or ran out of memory. `make fuzz-merge` also minimizes the corpora
## into Tests/Fuzz/corpus/ to commit.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
.PHONY: fuzz fuzz-smoke fuzz-merge
fuzz: setup
	Tests/Fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-merge: setup
	Tests/Fuzz/run.sh --merge $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## What CI runs: every input of the committed corpora and the seeds through each target once, no mutation.
fuzz-smoke: setup
	Tests/Fuzz/run.sh --smoke

## Generates the benchmark corpora and compares docpkg with its peers (takes minutes).
bench: release
	Benchmarks/run.sh

## The deep-tree suites at 10,000 levels (issue 23; `make test` runs them at 300), in a release build with testing
## enabled in .build-deep: a debug build of swift-system spends microseconds on each byte of each path it makes,
## which at 10,000 levels (20 KB paths) is most of an hour per command.
DEEP_BUILD := --scratch-path .build-deep -c release -Xswiftc -enable-testing
.PHONY: deep-test
deep-test: setup
	$(SWIFT) build $(DEEP_BUILD) --product DocumentPackagePackageTests
	DOCPKG_DEEP_TREE_DEPTH=10000 $(SWIFT) test $(DEEP_BUILD) --skip-build --filter DeepTree

clean:
	rm -rf .build $(DEMO_DIR)
