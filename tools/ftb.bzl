"""Build macros shared by every ftb package: one place for our warning flags,
protobuf generation with the system protoc, and Boost.Test targets."""

FTB_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    # Option structs are meant for designated initializers that name only the
    # fields they change; GCC would flag every omitted field.
    "-Wno-missing-field-initializers",
]

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

def ftb_integration_test(name, srcs, deps = [], data = [], size = "medium", **kwargs):
    """A Boost.Test target that runs real ftb-agent processes (tests/support/agent_process.h)."""
    ftb_cc_test(
        name = name,
        size = size,
        srcs = srcs,
        data = data + ["//agent:ftb-agent"],
        deps = deps + [
            "//client",
            "//client:core",
            "//tests/support:agent_process",
            "//tests/support:test_clients",
        ],
        **kwargs
    )
