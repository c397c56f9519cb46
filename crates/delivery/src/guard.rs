//! Which resolved addresses a webhook may never be sent to (SSRF guard).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Private, loopback, link-local, shared (CGNAT), unspecified, multicast, broadcast,
/// documentation and IETF-reserved ranges. IPv6 that carries an IPv4 address (mapped,
/// compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged as that IPv4 address,
/// because a translator or relay on the path delivers it there.
pub fn is_forbidden_target(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => forbidden_v4(v4),
            None => forbidden_v6(v6),
        },
    }
}

/// The IPv4 address an IPv6 address stands for, where its format says so.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); `::` and `::1`
    // stay IPv6 (unspecified and loopback are judged below).
    if s[..6] == [0; 6] && (s[6] != 0 || s[7] > 1) {
        return Some(tail(s[6], s[7]));
    }
    // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052).
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail(s[6], s[7]));
    }
    // 6to4 2002:AABB:CCDD::/48 (RFC 3056).
    if s[0] == 0x2002 {
        return Some(tail(s[1], s[2]));
    }
    None
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
        || (a == 192 && b == 0 && ip.octets()[2] == 0) // 192.0.0.0/24 IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn forbidden_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let first = s[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated, still private)
        || (first == 0x64 && s[1] == 0xff9b && s[2] == 1) // local-use NAT64 64:ff9b:1::/48
        || (first == 0x2001 && s[1] == 0) // Teredo 2001::/32: the IPv4 inside is obfuscated
        || (first == 0x2001 && s[1] == 0x0db8) // documentation
        || (first == 0x0100 && s[1..4] == [0, 0, 0]) // discard-only 100::/64
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
            "192.0.0.1",
            "192.0.0.170",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1::8.8.8.8",
            "2002:7f00:1::1",
            "2002:c0a8:101::",
            "2002:a00:1:1::5",
            "fec0::1",
            "feff::1",
            "2001::1",
            "::10.0.0.1",
            "::127.0.0.1",
            "100::1",
        ] {
            assert!(is_forbidden_target(bad.parse().unwrap()), "{bad}");
        }
        for good in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "172.32.0.1",
            "192.0.1.1",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2001:4860::8888",
            "::8.8.8.8",
        ] {
            assert!(!is_forbidden_target(good.parse().unwrap()), "{good}");
        }
    }
}
