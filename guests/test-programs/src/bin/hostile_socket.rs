//! Tries the network from the isolate: a TCP connection to the address in its first
//! argument, a listening socket, and a name lookup. Prints what each gave; the host grants
//! no address, so each must fail.
use std::net::{TcpListener, TcpStream, ToSocketAddrs};

fn main() {
    let target = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9".into());
    match TcpStream::connect(&target) {
        Ok(_) => println!("connect: connected"),
        Err(e) => println!("connect: refused ({:?})", e.kind()),
    }
    match TcpListener::bind("0.0.0.0:0") {
        Ok(l) => match l.local_addr() {
            Ok(addr) => println!("listen: listening on {addr}"),
            Err(_) => println!("listen: listening"),
        },
        Err(e) => println!("listen: refused ({:?})", e.kind()),
    }
    match "localhost:80".to_socket_addrs() {
        Ok(mut addrs) => match addrs.next() {
            Some(addr) => println!("lookup: resolved {addr}"),
            None => println!("lookup: refused (empty)"),
        },
        Err(e) => println!("lookup: refused ({:?})", e.kind()),
    }
}
