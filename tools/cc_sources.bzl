"""cc_sources: the source files (srcs and hdrs, generated ones included) of
C/C++ targets and of everything they depend on in this workspace, as runfiles.
For builds outside Bazel that must compile exactly what Bazel compiles (the
trixie root of tests/ulfm): the list follows the BUILD files and cannot drift."""

CcSourcesInfo = provider(fields = ["files"])

def _collect_impl(target, ctx):
    direct = []
    for attr in ["srcs", "hdrs"]:
        for src in getattr(ctx.rule.attr, attr, []):
            direct.append(src.files)
    deps = [d[CcSourcesInfo].files for d in getattr(ctx.rule.attr, "deps", []) if CcSourcesInfo in d]
    return [CcSourcesInfo(files = depset(transitive = direct + deps))]

_collect = aspect(implementation = _collect_impl, attr_aspects = ["deps"])

def _cc_sources_impl(ctx):
    files = depset(transitive = [d[CcSourcesInfo].files for d in ctx.attr.deps])
    # Only this workspace's files: system libraries come from the other build's own root.
    ours = [f for f in files.to_list() if not f.owner.workspace_name]
    listing = ctx.actions.declare_file(ctx.label.name + ".list")
    ctx.actions.write(listing, "\n".join([f.short_path for f in ours]) + "\n")
    return [DefaultInfo(files = depset(ours + [listing]), runfiles = ctx.runfiles(files = ours + [listing]))]

cc_sources = rule(
    implementation = _cc_sources_impl,
    attrs = {"deps": attr.label_list(aspects = [_collect])},
)
