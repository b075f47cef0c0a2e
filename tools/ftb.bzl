"""Build macros shared by every ftb package: one place for our warning flags,
protobuf generation with the system protoc, and Boost.Test targets."""

# .bazelrc builds at -O1 (tests and tools compile ~12 % faster than at -O2);
# `-c opt`, what benchmarks and packages use, keeps -O2. Target copts come
# after --copt on the compiler's command line, so this -O2 wins there.
FTB_OPTIMIZATION = select({
    "//tools:optimized": ["-O2"],
    "//conditions:default": [],
})

FTB_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    # Option structs are meant for designated initializers that name only the
    # fields they change; GCC would flag every omitted field.
    "-Wno-missing-field-initializers",
] + FTB_OPTIMIZATION

def ftb_cc_library(name, copts = [], **kwargs):
    native.cc_library(name = name, copts = FTB_COPTS + copts, **kwargs)

def ftb_cc_binary(name, copts = [], **kwargs):
    native.cc_binary(name = name, copts = FTB_COPTS + copts, **kwargs)

def ftb_cc_test(name, copts = [], deps = [], **kwargs):
    """A Boost.Test unit test (the test file defines BOOST_TEST_MODULE)."""
    native.cc_test(
        name = name,
        copts = FTB_COPTS + copts,
        deps = deps + ["//third_party/sys:boost_test"],
        **kwargs
    )

def ftb_proto_library(name, srcs, deps = [], visibility = None):
    """C++ from .proto with the system protoc (Bazel's proto rules would download protoc)."""
    outs = []
    for src in srcs:
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = outs,
        cmd = "protoc --proto_path=. --cpp_out=$(GENDIR) " +
              " ".join(["$(location %s)" % s for s in srcs]),
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["//third_party/sys:protobuf"],
        visibility = visibility,
    )

def ftb_unit_tests(srcs, deps = [], size = "small"):
    """One Boost.Test target per `<name>_test.cc` in srcs, all with the same deps."""
    for src in srcs:
        ftb_cc_test(name = src[:-len(".cc")], size = size, srcs = [src], deps = deps)

def ftb_integration_test(name, srcs, deps = [], data = [], size = "medium", over_stream = False, **kwargs):
    """A Boost.Test target that runs real ftb-agent processes (tests/support/agent_process.h).

    over_stream: also `<name>_over_stream`, the same test with its clients on the
    agent's own Unix stream socket (AgentProcess::localEndpoint()) instead of ZeroMQ ipc://.
    """
    for suffix, transport in [("", "ipc")] + ([("_over_stream", "stream")] if over_stream else []):
        ftb_cc_test(
            name = name + suffix,
            size = size,
            srcs = srcs,
            data = data + ["//agent:ftb-agent"],
            env = {"FTB_TEST_LOCAL_TRANSPORT": transport},
            deps = deps + [
                "//client",
                "//client:core",
                "//tests/support:agent_process",
                "//tests/support:test_clients",
            ],
            **kwargs
        )

def ftb_fuzz_test(name, srcs, deps = [], dict = None, seconds = 10):
    """A libFuzzer target `<name>_bin` and the test `<name>` that runs it (tests/fuzz/README.md).

    Under --config=fuzz (clang-14 in its own output base: tests/fuzz/bazel.sh) the
    binary links libFuzzer and the test fuzzes for `seconds` from the seed corpus
    tests/fuzz/corpus/<name>/ (with `dict`, if given). Under gcc it links a driver
    that only replays that corpus, so the seeds and every crash reproducer kept
    there run as regression tests in the ordinary build and under --config=asan.
    """
    corpus = "corpus/" + name
    native.cc_binary(
        name = name + "_bin",
        testonly = True,
        srcs = srcs,
        copts = FTB_COPTS,
        linkopts = select({
            "//tests/fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//tests/fuzz:libfuzzer": [],
            "//conditions:default": ["//tests/fuzz:replay_main"],
        }),
    )
    args = [
        "$(location :%s_bin)" % name,
        str(seconds),
        native.package_name() + "/" + corpus,
    ]
    data = [":" + name + "_bin"] + native.glob([corpus + "/*"], allow_empty = False)
    if dict:
        args.append("$(location %s)" % dict)
        data.append(dict)
    native.sh_test(
        name = name,
        size = "small",
        timeout = "moderate",  # a replay takes a second; fuzzing, `seconds` plus start-up
        srcs = ["//tests/fuzz:run_fuzzer.sh"],
        args = args,
        data = data,
        # Never a cached result: each run fuzzes afresh (a replay costs a second).
        tags = ["external"],
    )
