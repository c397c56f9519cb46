//! Who a public request comes from, for the per-client limits (D15, D21).
//!
//! Behind a load balancer every request arrives from the balancer; only a peer listed in
//! `STABLEPAY_TRUSTED_PROXIES` may name the client, in `X-Forwarded-For`. The client is
//! the right-most address there that is not itself a trusted proxy (the left part of the
//! header is whatever the client chose to send). IPv6 clients are keyed by their /64,
//! the smallest block one subscriber usually holds.

use std::net::{IpAddr, Ipv6Addr};

use actix_web::HttpRequest;
use ipnet::IpNet;

/// The proxies allowed to forward the client's address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// A comma-separated list of addresses and CIDR blocks (`10.0.0.0/8, 2001:db8::1`).
    /// Errors: the first entry that is neither, quoted.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("`{entry}` is not an IP address or CIDR block"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The address a per-client limit keys on (see the module's comment).
    pub fn client_key(&self, req: &HttpRequest) -> IpAddr {
        key(self.client_address(req))
    }

    /// The client's own address, whole (the audit log records it; limits key on
    /// `client_key`).
    pub fn client_address(&self, req: &HttpRequest) -> IpAddr {
        let peer = req
            .peer_addr()
            .map(|a| a.ip())
            .unwrap_or(IpAddr::from([0, 0, 0, 0]));
        self.client(peer, forwarded_for(req))
    }

    fn client<'a>(
        &self,
        peer: IpAddr,
        forwarded: impl DoubleEndedIterator<Item = &'a str>,
    ) -> IpAddr {
        let mut client = peer;
        if !self.trusts(peer) {
            return client;
        }
        for hop in forwarded.rev() {
            let hop = hop.trim();
            // Some balancers append the client's port: `1.2.3.4:5678`, `[2001:db8::1]:443`.
            let parsed = hop
                .parse::<IpAddr>()
                .or_else(|_| hop.parse::<std::net::SocketAddr>().map(|s| s.ip()));
            match parsed {
                Ok(ip) => {
                    client = ip;
                    if !self.trusts(ip) {
                        break;
                    }
                }
                // Garbage where an address should be: stop at the last hop we could read.
                Err(_) => break,
            }
        }
        client
    }
}

/// Every address of every `X-Forwarded-For` header, in order.
fn forwarded_for(req: &HttpRequest) -> std::vec::IntoIter<&str> {
    req.headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect::<Vec<_>>()
        .into_iter()
}

/// IPv4 as is (IPv4-mapped IPv6 as its IPv4), IPv6 by its /64.
fn key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn request(peer: &str, forwarded: &[&str]) -> HttpRequest {
        let peer: IpAddr = peer.parse().unwrap();
        let mut r = TestRequest::default().peer_addr(std::net::SocketAddr::new(peer, 443));
        for value in forwarded {
            r = r.append_header(("X-Forwarded-For", *value));
        }
        r.to_http_request()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn parses_addresses_and_blocks_and_names_the_bad_entry() {
        let t = TrustedProxies::parse(" 10.0.0.0/8, 192.168.1.7 ,2001:db8::/32,").unwrap();
        assert!(t.trusts(ip("10.2.3.4")) && t.trusts(ip("192.168.1.7")));
        assert!(t.trusts(ip("2001:db8::5")) && !t.trusts(ip("192.168.1.8")));
        assert_eq!(
            TrustedProxies::parse("").unwrap(),
            TrustedProxies::default()
        );
        let e = TrustedProxies::parse("10.0.0.0/8, lb.internal").unwrap_err();
        assert!(e.contains("`lb.internal`"), "{e}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let none = TrustedProxies::default();
        assert_eq!(
            none.client_key(&request("203.0.113.9", &["1.2.3.4"])),
            ip("203.0.113.9")
        );
        let t = TrustedProxies::parse("10.0.0.0/8").unwrap();
        assert_eq!(
            t.client_key(&request("203.0.113.9", &["1.2.3.4"])),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn a_trusted_peer_names_the_right_most_untrusted_hop() {
        let t = TrustedProxies::parse("10.0.0.0/8").unwrap();
        // The client may prepend anything; the balancer appends what it saw.
        let r = request("10.0.0.2", &["6.6.6.6, 198.51.100.7", "10.0.0.9"]);
        assert_eq!(t.client_key(&r), ip("198.51.100.7"));
        assert_eq!(t.client_key(&request("10.0.0.2", &[])), ip("10.0.0.2"));
        let with_port = request("10.0.0.2", &["198.51.100.7:5678, [2001:db8::1]:443"]);
        assert_eq!(t.client_key(&with_port), ip("2001:db8::"));
        let v4_port = request("10.0.0.2", &["198.51.100.7:5678"]);
        assert_eq!(t.client_key(&v4_port), ip("198.51.100.7"));
        assert_eq!(
            t.client_key(&request("10.0.0.2", &["junk"])),
            ip("10.0.0.2")
        );
        assert_eq!(
            t.client_key(&request("10.0.0.2", &["198.51.100.7, junk"])),
            ip("10.0.0.2")
        );
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_64() {
        let t = TrustedProxies::parse("::1").unwrap();
        let a = t.client_key(&request("::1", &["2001:db8:1:2:aaaa::1"]));
        let b = t.client_key(&request("::1", &["2001:db8:1:2:bbbb::7"]));
        let c = t.client_key(&request("::1", &["2001:db8:1:3::1"]));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            t.client_key(&request("::1", &["::ffff:198.51.100.7"])),
            ip("198.51.100.7")
        );
    }
}
