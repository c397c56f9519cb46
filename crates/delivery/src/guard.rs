//! Which resolved addresses a webhook may never be sent to (SSRF guard).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Private, loopback, link-local, shared (CGNAT), unspecified, multicast, broadcast and
/// documentation ranges; IPv4-mapped IPv6 is judged as IPv4.
pub fn is_forbidden_target(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => forbidden_v4(v4),
            None => forbidden_v6(v6),
        },
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // 100.64.0.0/10 shared address space
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn forbidden_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first == 0x2001 && ip.segments()[1] == 0x0db8) // documentation
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_and_allowed() {
        for bad in [
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "127.0.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
        ] {
            assert!(is_forbidden_target(bad.parse().unwrap()), "{bad}");
        }
        for good in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "172.32.0.1",
        ] {
            assert!(!is_forbidden_target(good.parse().unwrap()), "{good}");
        }
    }
}
