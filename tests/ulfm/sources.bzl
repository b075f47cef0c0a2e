"""The source files (C++, headers, .proto) of C++ targets and of everything they
depend on in this workspace, as a list file plus runfiles: what a build outside
Bazel (tests/ulfm/build_ftbckpt.sh, in the trixie root) compiles. Read from the
BUILD files at build time, so the list cannot drift from them."""

SourcesInfo = provider(fields = ["files", "generated"])

def _collect_impl(target, ctx):
    direct = []
    generated = []
    for attr in ["srcs", "hdrs"]:
        for f in getattr(ctx.rule.files, attr, []):
            if not f.is_source:
                generated.append(f)
            # Workspace sources only (generated .pb.cc come back as their .proto
            # through the genrule that makes them; external repos are system libs).
            if f.is_source and not f.owner.workspace_name:
                direct.append(f)
    transitive = []
    transitive_generated = []
    for attr in ["deps", "srcs"]:
        for dep in getattr(ctx.rule.attr, attr, []):
            if type(dep) == "Target" and SourcesInfo in dep:
                transitive.append(dep[SourcesInfo].files)
                transitive_generated.append(dep[SourcesInfo].generated)
    return [SourcesInfo(
        files = depset(direct, transitive = transitive),
        generated = depset(generated, transitive = transitive_generated),
    )]

_collect = aspect(implementation = _collect_impl, attr_aspects = ["deps", "srcs"])

def _source_list_impl(ctx):
    files = depset(transitive = [d[SourcesInfo].files for d in ctx.attr.deps])

    # Generated C++ must come from a .proto of the list (the genrules of
    # ftb_proto_library are named in deps): anything else could not be rebuilt.
    protos = [f.short_path[:-len(".proto")] for f in files.to_list() if f.extension == "proto"]
    for deps in [d[SourcesInfo].generated for d in ctx.attr.deps]:
        for g in deps.to_list():
            base = g.short_path.replace(".pb.cc", "").replace(".pb.h", "")
            if base not in protos:
                fail("%s is generated but no .proto of the list makes it: add its generating rule to deps" % g.short_path)
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    paths = sorted([f.short_path for f in files.to_list()])
    ctx.actions.write(out, "".join([p + "\n" for p in paths]))
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(transitive_files = files))]

source_list = rule(
    implementation = _source_list_impl,
    attrs = {"deps": attr.label_list(aspects = [_collect])},
)
