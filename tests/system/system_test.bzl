"""One target of the real-systemd tier (tests/system/container.sh)."""

def system_test(name, srcs, data = []):
    native.sh_test(
        name = name,
        size = "large",
        srcs = srcs,
        data = data + [
            "bmc_sim.sh",
            "container.sh",
            "deps_root.sh",
            "systemd_layer.sh",
            "//components/ipmi/sim",
            "//deploy:package-deb.sh",
            "//tests/install:fresh_root.sh",
            "//tests/install:install_tree",
        ],
        # Boots a whole system in a root and a work directory of its own, so
        # targets of the tier run side by side, and beside other tests: what
        # they check does not depend on load (tests/stress.sh runs them under
        # CPU hogs). Needs Debian's archive.
        tags = ["requires-network"],
    )
