"""One target of the real-systemd tier (tests/system/container.sh)."""

def system_test(name, srcs, data = []):
    native.sh_test(
        name = name,
        size = "large",
        srcs = srcs,
        data = data + [
            "bmc_sim.sh",
            "container.sh",
            "systemd_layer.sh",
            "//components/ipmi/sim",
            "//deploy:package-deb.sh",
            "//tests/install:fresh_root.sh",
            "//tests/install:install_tree",
        ],
        # Boots a whole system: alone on the machine, so that timing (watchdog,
        # drain) is not decided by other tests' load; needs Debian's archive.
        tags = ["exclusive", "requires-network"],
    )
