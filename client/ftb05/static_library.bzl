"""ftb_static_archive: one .a holding every static library its deps link from
this workspace (system libraries given as linkopts stay outside). Bazel 4 has no
cc_static_library; this walks CcInfo's linker inputs instead of naming them."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    archives = []
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for lib in linker_input.libraries:
                archive = lib.pic_static_library or lib.static_library
                if archive and archive not in archives:
                    archives.append(archive)
    out = ctx.outputs.out
    script = "\n".join(["create " + out.path] + ["addlib " + a.path for a in archives] + ["save", "end"])
    ctx.actions.run_shell(
        inputs = depset(archives, transitive = [cc_toolchain.all_files]),
        outputs = [out],
        command = "printf '%s\\n' \"$2\" | \"$1\" -M",
        arguments = [cc_toolchain.ar_executable, script],
        mnemonic = "StaticArchive",
        progress_message = "Archiving %s" % out.short_path,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

ftb_static_archive = rule(
    implementation = _impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.output(mandatory = True),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    fragments = ["cpp"],
)
