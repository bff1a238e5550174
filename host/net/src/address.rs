//! Addresses a guest reaches only when a rule names their host: loopback, private,
//! link-local (the cloud metadata services live there), and the other ranges that are not
//! the public internet.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The restricted range `ip` is in, named for error messages; `None` for a public address.
pub fn restricted_range(ip: IpAddr) -> Option<&'static str> {
    match ip.to_canonical() {
        IpAddr::V4(v4) => restricted_v4(v4),
        IpAddr::V6(v6) => restricted_v6(v6),
    }
}

/// Whether `ip` is where cloud metadata services answer (link-local, AWS's IPv6 endpoint,
/// Alibaba's 100.100.100.200): a rule must name the address itself to open it, since a
/// name's owner can point it anywhere.
pub fn is_metadata_class(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.is_link_local() || v4 == Ipv4Addr::new(100, 100, 100, 200),
        IpAddr::V6(v6) => {
            v6.is_unicast_link_local() || v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)
        }
    }
}

fn restricted_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(match (a, b) {
        (0, _) => "0.0.0.0/8 (this network)",
        (127, _) => "127.0.0.0/8 (loopback)",
        (10, _) => "10.0.0.0/8 (private)",
        (172, 16..=31) => "172.16.0.0/12 (private)",
        (192, 168) => "192.168.0.0/16 (private)",
        (169, 254) => "169.254.0.0/16 (link-local, cloud metadata)",
        (100, 64..=127) => "100.64.0.0/10 (shared address space)",
        (192, 0) if ip.octets()[2] == 0 => "192.0.0.0/24 (IETF protocol assignments)",
        (198, 18..=19) => "198.18.0.0/15 (benchmarking)",
        (224..=239, _) => "224.0.0.0/4 (multicast)",
        (240..=255, _) => "240.0.0.0/4 (reserved, broadcast)",
        _ => return None,
    })
}

fn restricted_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    Some(if ip.is_loopback() {
        "::1 (loopback)"
    } else if ip.is_unspecified() {
        ":: (unspecified)"
    } else if ip.is_unique_local() {
        "fc00::/7 (unique local)"
    } else if ip.is_unicast_link_local() {
        "fe80::/10 (link-local)"
    } else if ip.is_multicast() {
        "ff00::/8 (multicast)"
    } else if first == 0x0064 && ip.segments()[1] == 0xff9b {
        // NAT64 embeds an IPv4 address; whichever it is, it is not checked here.
        "64:ff9b::/96 (NAT64)"
    } else if first == 0x2002 {
        "2002::/16 (6to4)"
    } else if ip.to_ipv4().is_some() {
        // IPv4-compatible (::a.b.c.d), deprecated; the mapped form was made canonical above.
        "::/96 (IPv4-compatible)"
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        for (ip, range) in [
            ("127.0.0.1", Some("127.0.0.0/8 (loopback)")),
            ("10.1.2.3", Some("10.0.0.0/8 (private)")),
            ("172.31.0.1", Some("172.16.0.0/12 (private)")),
            ("172.32.0.1", None),
            ("192.168.1.1", Some("192.168.0.0/16 (private)")),
            (
                "169.254.169.254",
                Some("169.254.0.0/16 (link-local, cloud metadata)"),
            ),
            ("0.0.0.0", Some("0.0.0.0/8 (this network)")),
            ("8.8.8.8", None),
            ("::1", Some("::1 (loopback)")),
            ("::ffff:127.0.0.1", Some("127.0.0.0/8 (loopback)")),
            (
                "::ffff:169.254.169.254",
                Some("169.254.0.0/16 (link-local, cloud metadata)"),
            ),
            ("fd00::1", Some("fc00::/7 (unique local)")),
            ("fe80::1", Some("fe80::/10 (link-local)")),
            ("2606:4700::1111", None),
            ("64:ff9b::7f00:1", Some("64:ff9b::/96 (NAT64)")),
        ] {
            assert_eq!(restricted_range(ip.parse().unwrap()), range, "{ip}");
        }
        for (ip, metadata) in [
            ("169.254.169.254", true),
            ("::ffff:169.254.169.254", true),
            ("fd00:ec2::254", true),
            ("100.100.100.200", true),
            ("fe80::1", true),
            ("127.0.0.1", false),
            ("10.0.0.1", false),
        ] {
            assert_eq!(is_metadata_class(ip.parse().unwrap()), metadata, "{ip}");
        }
    }
}
