//! napi-rs's link setup for a Node.js addon (symbols resolved by node at load time).

fn main() {
    napi_build::setup();
}
