//! Bucket import and export against a real S3-compatible server started here: `moto_server`
//! (PyPI `moto[server]`, installed by `.ci/run`) on a free loopback port.

#[path = "support/moto.rs"]
mod moto;

use std::collections::BTreeMap;
use std::sync::Arc;

use computer::Workspace;
use computer_bucket::{BucketConfig, BucketError, BucketStats, BucketUrl};
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{Attribute, Attributes, ObjectStore, ObjectStoreExt, PutOptions, PutPayload};

use moto::Moto;

fn config(moto: &Moto) -> BucketConfig {
    BucketConfig {
        endpoint: Some(moto.endpoint.clone()),
        region: Some("us-east-1".into()),
        access_key_id: Some("test".into()),
        secret_access_key: Some("test".into()),
        allow_http: true,
        ..Default::default()
    }
}

/// A new bucket on the server, and a store for `s3://BUCKET/PREFIX`.
fn bucket(moto: &Moto, name: &str, prefix: &str) -> (BucketUrl, Arc<dyn ObjectStore>) {
    moto.create_bucket(name);
    let url = BucketUrl::parse(&format!("s3://{name}/{prefix}")).unwrap();
    let store = computer_bucket::open_store_with(&url, &config(moto)).unwrap();
    (url, store)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn import(
    store: &Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    dest: &str,
) -> Result<BucketStats, BucketError> {
    runtime().block_on(computer_bucket::import(
        Arc::clone(store),
        url,
        ws,
        std::path::Path::new(dest),
        &mut |_| {},
    ))
}

fn try_export(
    store: &Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    src: &str,
    delete: bool,
) -> Result<BucketStats, BucketError> {
    runtime().block_on(computer_bucket::export(
        Arc::clone(store),
        url,
        ws,
        std::path::Path::new(src),
        delete,
        &mut |_| {},
    ))
}

fn export(
    store: &Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    src: &str,
    delete: bool,
) -> BucketStats {
    try_export(store, url, ws, src, delete).unwrap()
}

/// Every object under `prefix`: key → bytes.
fn objects(store: &Arc<dyn ObjectStore>, prefix: &str) -> BTreeMap<String, Vec<u8>> {
    runtime().block_on(async {
        let metas: Vec<_> = store
            .list(Some(&ObjectPath::from(prefix)))
            .try_collect()
            .await
            .unwrap();
        let mut out = BTreeMap::new();
        for m in metas {
            let bytes = store.get(&m.location).await.unwrap().bytes().await.unwrap();
            out.insert(m.location.as_ref().to_string(), bytes.to_vec());
        }
        out
    })
}

/// Content of object number `n`: varied sizes, some empty, one of several pieces.
fn content(n: usize) -> Vec<u8> {
    let len = match n % 7 {
        0 => 0,
        1 => 1,
        _ => n * 13 % 5000,
    };
    (0..len).map(|i| (i * 31 + n) as u8).collect()
}

#[test]
fn import_thousands_of_objects_then_export_them_back_byte_for_byte() {
    let Some(moto) = moto::shared() else { return };
    let (url, store) = bucket(moto, "seed", "data");
    let count = 1500;
    runtime().block_on(async {
        let puts = (0..count).map(|n| {
            let store = Arc::clone(&store);
            async move {
                let key = ObjectPath::from(format!("data/d{}/e{}/f{n}.bin", n % 10, n % 3));
                let mut attributes = Attributes::new();
                if n % 5 == 0 {
                    attributes.insert(Attribute::Metadata("mode".into()), "755".into());
                }
                let options = PutOptions {
                    attributes,
                    ..Default::default()
                };
                store
                    .put_opts(&key, PutPayload::from(content(n)), options)
                    .await
            }
        });
        futures::stream::iter(puts)
            .buffer_unordered(16)
            .try_collect::<Vec<_>>()
            .await
            .unwrap();
    });
    // One big object, moved in several pieces.
    let big: Vec<u8> = (0..20 << 20).map(|i: usize| (i % 251) as u8).collect();
    runtime()
        .block_on(store.put(
            &ObjectPath::from("data/big.bin"),
            PutPayload::from(big.clone()),
        ))
        .unwrap();

    let ws = Workspace::in_memory().unwrap();
    let stats = import(&store, &url, &ws, "/workspace/in").unwrap();
    assert_eq!(stats.transferred, count as u64 + 1);
    for n in (0..count).step_by(37) {
        let path = format!("/workspace/in/d{}/e{}/f{n}.bin", n % 10, n % 3);
        assert_eq!(ws.fs().read_file(&path).unwrap(), content(n), "{path}");
        let perm = ws.fs().stat(&path).unwrap().perm;
        assert_eq!(perm == 0o755, n % 5 == 0, "{path}: mode {perm:o}");
    }
    assert_eq!(ws.fs().read_file("/workspace/in/big.bin").unwrap(), big);
    assert!(
        ws.fs().read_dir("/tmp").unwrap().is_empty(),
        "the staging folder is gone"
    );

    // Export to another prefix of another bucket: the same objects, byte for byte.
    let (out_url, out_store) = bucket(moto, "copy", "back");
    let stats = export(&out_store, &out_url, &ws, "/workspace/in", false);
    assert_eq!(stats.transferred, count as u64 + 1);
    let original = objects(&store, "data");
    let copied = objects(&out_store, "back");
    assert_eq!(original.len(), copied.len());
    for (key, bytes) in &original {
        let other = format!("back{}", key.strip_prefix("data").unwrap());
        assert_eq!(copied.get(&other), Some(bytes), "{other}");
    }
    // Modes travel as metadata.
    let got = runtime()
        .block_on(out_store.get(&ObjectPath::from("back/d0/e0/f0.bin")))
        .unwrap();
    let mode = got
        .attributes
        .get(&Attribute::Metadata("mode".into()))
        .unwrap();
    assert_eq!(mode.as_ref(), "755");
}

use futures::StreamExt;

#[test]
fn export_syncs_only_changes_and_deletes_with_delete() {
    let Some(moto) = moto::shared() else { return };
    let (url, store) = bucket(moto, "sync", "site");
    let ws = Workspace::in_memory().unwrap();
    for n in 0..20 {
        ws.fs()
            .create_dir_all(format!("/workspace/site/p{}", n % 4))
            .unwrap();
        ws.fs()
            .write_file(format!("/workspace/site/p{}/f{n}", n % 4), content(n + 3))
            .unwrap();
    }
    ws.fs().symlink("p0/f0", "/workspace/site/link").unwrap();
    let first = export(&store, &url, &ws, "/workspace/site", true);
    assert_eq!(
        (first.transferred, first.unchanged, first.deleted),
        (20, 0, 0)
    );
    assert_eq!(first.skipped.len(), 1, "the symlink is skipped and said");

    // Nothing changed: nothing uploaded.
    let again = export(&store, &url, &ws, "/workspace/site", true);
    assert_eq!(
        (again.transferred, again.unchanged, again.deleted),
        (0, 20, 0)
    );

    // One changed (same size, other bytes), one removed, one added.
    let changed = content(4).iter().map(|b| b ^ 0xff).collect::<Vec<u8>>();
    ws.fs()
        .write_file("/workspace/site/p1/f1", &changed)
        .unwrap();
    ws.fs().remove_file("/workspace/site/p2/f2").unwrap();
    ws.fs()
        .write_file("/workspace/site/new.txt", "new\n")
        .unwrap();
    let without_delete = export(&store, &url, &ws, "/workspace/site", false);
    assert_eq!((without_delete.transferred, without_delete.deleted), (2, 0));
    assert!(objects(&store, "site").contains_key("site/p2/f2"));
    let synced = export(&store, &url, &ws, "/workspace/site", true);
    assert_eq!(
        (synced.transferred, synced.unchanged, synced.deleted),
        (0, 20, 1)
    );
    let remote = objects(&store, "site");
    assert_eq!(remote.len(), 20);
    assert_eq!(remote["site/p1/f1"], changed);
    assert_eq!(remote["site/new.txt"], b"new\n");
    assert!(!remote.contains_key("site/p2/f2"));
}

#[test]
fn bad_buckets_keys_and_sizes_are_refused_with_nothing_written() {
    let Some(moto) = moto::shared() else { return };
    let ws = Workspace::in_memory().unwrap();

    // A bucket that does not exist.
    let url = BucketUrl::parse("s3://no-such-bucket/x").unwrap();
    let store = computer_bucket::open_store_with(&url, &config(moto)).unwrap();
    let err = import(&store, &url, &ws, "/workspace/missing").unwrap_err();
    assert!(
        err.to_string().contains("list s3://no-such-bucket/x"),
        "{err}"
    );
    assert!(!ws.fs().exists("/workspace/missing").unwrap());

    // Malformed addresses.
    for bad in ["s3://", "s3://UPPER/x", "http://b/x", "s3://bucket/a/../b"] {
        assert!(BucketUrl::parse(bad).is_err(), "{bad}");
    }

    // Keys that would leave the destination, put by a raw client as a hostile bucket would:
    // object_store refuses such a listing, or our own check does; either way the error names
    // the key and nothing is written.
    for (name, key, named) in [
        ("dots", "p/a/../../escape.txt", ".."),
        ("slash", "p//abs.txt", "p//abs.txt"),
    ] {
        let (url, store) = bucket(moto, &format!("hostile-{name}"), "p");
        for key in ["p/ok.txt", key] {
            raw_put(moto, &format!("/hostile-{name}/{key}"), b"x");
        }
        let err = import(&store, &url, &ws, "/workspace/hostile").unwrap_err();
        let text = err.to_string();
        assert!(text.contains(named), "{name}: {text}");
        assert!(!ws.fs().exists("/workspace/hostile").unwrap());
        assert!(!ws.fs().exists("/escape.txt").unwrap());
        assert!(!ws.fs().exists("/workspace/escape.txt").unwrap());
    }

    // An object above the workspace's file size limit.
    let (url, store) = bucket(moto, "toobig", "");
    runtime()
        .block_on(store.put(&ObjectPath::from("small"), PutPayload::from(vec![1u8; 10])))
        .unwrap();
    runtime()
        .block_on(store.put(
            &ObjectPath::from("large"),
            PutPayload::from(vec![1u8; 5000]),
        ))
        .unwrap();
    ws.fs().set_max_file_size(1000).unwrap();
    let err = import(&store, &url, &ws, "/workspace/sized").unwrap_err();
    assert!(
        matches!(
            err,
            BucketError::TooLarge {
                size: 5000,
                limit: 1000,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("file size limit"), "{err}");
    assert!(!ws.fs().exists("/workspace/sized").unwrap());
    assert!(!ws.fs().exists("/workspace/sized/small").unwrap());
}

#[test]
fn wrong_credentials_are_refused_with_a_clear_error_and_nothing_written() {
    // A server of its own that checks signatures (moto's IAM mode) after its first request,
    // which creates the bucket: so the failure below is the credentials, not a missing bucket.
    let Some(moto) = moto::start(&[("INITIAL_NO_AUTH_ACTION_COUNT", "1")]) else {
        return;
    };
    moto.create_bucket("guarded");
    let url = BucketUrl::parse("s3://guarded/p").unwrap();
    let wrong = BucketConfig {
        access_key_id: Some("AKIAWRONGWRONGWRONG1".into()),
        secret_access_key: Some("not-the-secret".into()),
        ..config(&moto)
    };
    let store = computer_bucket::open_store_with(&url, &wrong).unwrap();
    let ws = Workspace::in_memory().unwrap();
    let err = import(&store, &url, &ws, "/workspace/in").unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("list s3://guarded/p"), "{text}");
    assert!(
        text.contains("403") && text.contains("InvalidAccessKeyId"),
        "{text}"
    );
    assert!(!ws.fs().exists("/workspace/in").unwrap());

    ws.fs().create_dir_all("/workspace/out").unwrap();
    ws.fs().write_file("/workspace/out/a.txt", b"a").unwrap();
    let err = try_export(&store, &url, &ws, "/workspace/out", false).unwrap_err();
    assert!(err.to_string().contains("InvalidAccessKeyId"), "{err}");
}

/// A PUT sent byte for byte (an HTTP client would resolve `..` in the path before sending).
fn raw_put(moto: &Moto, path: &str, body: &[u8]) {
    use std::io::{Read, Write};
    let addr = moto.endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "PUT {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(body).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(
        response.starts_with("HTTP/1.1 200"),
        "PUT {path}: {response}"
    );
}

/// A TCP proxy to moto that cuts the first response longer than `cut_after` bytes midway (as
/// a failing network or server would), calling `on_cut` first, and forwards everything else.
fn cutting_proxy(
    moto: &Moto,
    cut_after: usize,
    on_cut: impl Fn() + Send + Sync + 'static,
) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let on_cut = Arc::new(on_cut);
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let upstream = moto.endpoint.trim_start_matches("http://").to_string();
    let armed = Arc::new(AtomicBool::new(true));
    let cuts = Arc::new(AtomicUsize::new(0));
    let cuts_seen = Arc::clone(&cuts);
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { break };
            let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                continue;
            };
            let (mut c_read, mut s_write) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c_read, &mut s_write);
            });
            let (armed, cuts) = (Arc::clone(&armed), Arc::clone(&cuts));
            let on_cut = Arc::clone(&on_cut);
            std::thread::spawn(move || {
                let (mut s_read, mut c_write) = (server, client);
                let mut sent = 0usize;
                let mut buf = vec![0u8; 64 << 10];
                loop {
                    let n = match s_read.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if sent + n > cut_after && armed.swap(false, Ordering::SeqCst) {
                        let _ = c_write.write_all(&buf[..cut_after - sent]);
                        on_cut();
                        cuts.fetch_add(1, Ordering::SeqCst);
                        let _ = c_write.shutdown(std::net::Shutdown::Both);
                        let _ = s_read.shutdown(std::net::Shutdown::Both);
                        break;
                    }
                    if c_write.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    sent += n;
                }
            });
        }
    });
    (format!("http://{addr}"), cuts_seen)
}

#[test]
fn a_download_cut_midway_resumes_and_the_import_is_whole() {
    let Some(moto) = moto::shared() else { return };
    let (_, direct) = bucket(moto, "flaky", "");
    let big: Vec<u8> = (0..12 << 20).map(|i: usize| (i % 253) as u8).collect();
    runtime()
        .block_on(direct.put(&ObjectPath::from("big.bin"), PutPayload::from(big.clone())))
        .unwrap();
    let (endpoint, cuts) = cutting_proxy(moto, 3 << 20, || {});
    let url = BucketUrl::parse("s3://flaky").unwrap();
    let mut cfg = config(moto);
    cfg.endpoint = Some(endpoint);
    let store = computer_bucket::open_store_with(&url, &cfg).unwrap();
    let ws = Workspace::in_memory().unwrap();
    let stats = import(&store, &url, &ws, "/workspace/flaky").unwrap();
    assert_eq!(
        cuts.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the proxy cut a download"
    );
    assert_eq!(stats.transferred, 1);
    assert_eq!(ws.fs().read_file("/workspace/flaky/big.bin").unwrap(), big);
}

/// Every entry of a workspace: path → (kind, mode, content or link target).
fn tree(ws: &Workspace) -> BTreeMap<String, (String, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    for e in ws.fs().walk("/workspace").unwrap() {
        let data = match e.stat.kind {
            computer::vfs::FileType::File => ws.fs().read_file(&e.path).unwrap(),
            computer::vfs::FileType::Symlink => ws
                .fs()
                .read_link(&e.path)
                .unwrap()
                .to_string_lossy()
                .as_bytes()
                .to_vec(),
            computer::vfs::FileType::Dir => Vec::new(),
            // FIFOs, sockets, devices: the device number.
            _ => e.stat.rdev.to_le_bytes().to_vec(),
        };
        out.insert(
            e.path.to_string_lossy().into_owned(),
            (format!("{:?}", e.stat.kind), e.stat.perm, data),
        );
    }
    out
}

#[test]
fn snapshot_push_pull_is_identical_and_a_second_push_sends_only_changed_chunks() {
    let Some(moto) = moto::shared() else { return };
    let (url, store) = bucket(moto, "snaps", "team/ws1");
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path().join("a.db")).unwrap();
    for n in 0..40 {
        ws.fs()
            .create_dir_all(format!("/workspace/d{}", n % 5))
            .unwrap();
        ws.fs()
            .write_file(format!("/workspace/d{}/f{n}", n % 5), content(n + 11))
            .unwrap();
    }
    let big: Vec<u8> = (0..3 << 20).map(|i: usize| (i % 241) as u8).collect();
    ws.fs().write_file("/workspace/big.bin", &big).unwrap();
    ws.fs().set_permissions("/workspace/d1", 0o700).unwrap();
    ws.fs().symlink("d0/f0", "/workspace/link").unwrap();
    // A FIFO and a device node travel as manifest entries (kind, mode, device number).
    let root = ws.fs().stat("/workspace").unwrap().ino;
    let owner = computer::vfs::Owner { uid: 0, gid: 0 };
    let special = [
        ("pipe", computer::vfs::FileType::Fifo, 0),
        ("tty", computer::vfs::FileType::CharDevice, 5 << 8), // 5:0
    ];
    for (name, kind, dev) in special {
        ws.fs()
            .mknod(root, name.as_ref(), kind, 0o620, dev, owner)
            .unwrap();
    }
    let rt = runtime();
    let first = rt
        .block_on(computer_bucket::push(Arc::clone(&store), &url, &ws, "v1"))
        .unwrap();
    // 34 non-empty small files of one chunk each (6 are empty: no chunk), the big one in 3;
    // a fresh bucket lacks them all.
    assert_eq!((first.chunks, first.chunks_uploaded), (37, 37), "{first:?}");

    let pulled = rt
        .block_on(computer_bucket::pull(
            Arc::clone(&store),
            &url,
            "v1",
            &dir.path().join("b.db"),
        ))
        .unwrap();
    assert_eq!(tree(&pulled), tree(&ws));

    // Change one small file and one chunk of the big one: two chunks go up, and the manifest.
    ws.fs().write_file("/workspace/d2/f2", "changed\n").unwrap();
    ws.fs()
        .write_at("/workspace/big.bin", 1 << 20, b"x")
        .unwrap();
    let second = rt
        .block_on(computer_bucket::push(Arc::clone(&store), &url, &ws, "v2"))
        .unwrap();
    assert_eq!(second.chunks_uploaded, 2, "{second:?}");
    let pulled = rt
        .block_on(computer_bucket::pull(
            Arc::clone(&store),
            &url,
            "v2",
            &dir.path().join("c.db"),
        ))
        .unwrap();
    assert_eq!(tree(&pulled), tree(&ws));
    // The first snapshot is still there, unchanged.
    let old = rt
        .block_on(computer_bucket::pull(
            Arc::clone(&store),
            &url,
            "v1",
            &dir.path().join("d.db"),
        ))
        .unwrap();
    assert_eq!(old.fs().read_file("/workspace/d2/f2").unwrap(), content(13));

    // A tampered chunk is refused and leaves no workspace file behind.
    let chunk = objects(&store, "team/ws1/chunks")
        .into_keys()
        .next()
        .unwrap();
    rt.block_on(store.put(
        &ObjectPath::from(chunk.as_str()),
        PutPayload::from_static(b"evil"),
    ))
    .unwrap();
    let bad = dir.path().join("e.db");
    let err = rt
        .block_on(computer_bucket::pull(Arc::clone(&store), &url, "v2", &bad))
        .unwrap_err();
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    assert!(!bad.exists());
}

/// Attacks from a bucket's side: an object replaced under a resumed download.
mod hostile {
    use super::*;

    /// An object replaced while its download is cut: the resumed request asks for the version
    /// first listed (`If-Match`), so the import fails whole instead of stitching two versions.
    #[test]
    fn a_download_resumed_after_a_change_is_not_stitched() {
        let Some(moto) = moto::shared() else { return };
        let (_, direct) = bucket(moto, "changing", "");
        let old: Vec<u8> = vec![b'o'; 8 << 20];
        runtime()
            .block_on(direct.put(&ObjectPath::from("f.bin"), PutPayload::from(old.clone())))
            .unwrap();
        let replace = {
            let direct = Arc::clone(&direct);
            move || {
                let new = vec![b'n'; 8 << 20];
                runtime()
                    .block_on(direct.put(&ObjectPath::from("f.bin"), PutPayload::from(new)))
                    .unwrap();
            }
        };
        let (endpoint, cuts) = cutting_proxy(moto, 3 << 20, replace);
        let url = BucketUrl::parse("s3://changing").unwrap();
        let mut cfg = config(moto);
        cfg.endpoint = Some(endpoint);
        let store = computer_bucket::open_store_with(&url, &cfg).unwrap();
        let ws = Workspace::in_memory().unwrap();
        let result = import(&store, &url, &ws, "/workspace/changing");
        assert_eq!(cuts.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(result.is_err(), "two versions were stitched into one file");
        assert!(!ws.fs().exists("/workspace/changing/f.bin").unwrap());
    }
}

#[test]
fn a_workspaces_policy_holds_its_transfers_and_credentials_come_from_secrets() {
    use computer::net::{Policy, Secret, Secrets};
    let Some(moto) = moto::shared() else {
        return;
    };
    moto.create_bucket("held");
    let port = moto.endpoint.rsplit(':').next().unwrap().to_string();
    // By name: the store connects to the addresses the policy checked for it.
    let endpoint = format!("http://localhost:{port}");
    let url = BucketUrl::parse("s3://held/open").unwrap();
    let base = BucketConfig {
        endpoint: Some(endpoint.clone()),
        ..config(moto)
    };
    assert_eq!(base.request_url(&url), format!("{endpoint}/held/open/"));
    let ws = Workspace::in_memory().unwrap();
    ws.fs().create_dir_all("/workspace/out").unwrap();
    ws.fs().write_file("/workspace/out/a.txt", b"a").unwrap();
    // Nothing allowed: refused before any request.
    let err = base.clone().held_by(&url, &ws, &["PUT"]).unwrap_err();
    assert!(matches!(err, BucketError::Refused(_)), "{err}");
    assert!(err.to_string().contains("allows nothing"), "{err}");
    ws.set_net_policy(&Policy::from_text(&format!("allow {endpoint}/held/open")).unwrap())
        .unwrap();
    let held = base.clone().held_by(&url, &ws, &["PUT"]).unwrap();
    let store = computer_bucket::open_store_with(&url, &held).unwrap();
    export(&store, &url, &ws, "/workspace/out", false);
    assert_eq!(objects(&store, "open").len(), 1);
    // A key's `#`, `?` or `%` is part of its segment: no fragment or query hides the rest
    // of the prefix from the rule.
    for sly in ["open#x", "open?x", "open%2Fx", "open x", r"open\..\closed"] {
        let sly = BucketUrl::parse(&format!("s3://held/{sly}")).unwrap();
        let err = base.clone().held_by(&sly, &ws, &["PUT"]).unwrap_err();
        assert!(err.to_string().contains("no rule"), "{sly}: {err}");
    }
    // Another prefix of the same bucket, or a method the rule does not give: refused.
    let other = BucketUrl::parse("s3://held/closed").unwrap();
    let err = base.clone().held_by(&other, &ws, &["PUT"]).unwrap_err();
    assert!(err.to_string().contains("no rule"), "{err}");
    ws.set_net_policy(&Policy::from_text(&format!("allow {endpoint}/held/open GET")).unwrap())
        .unwrap();
    assert!(base.clone().held_by(&url, &ws, &["PUT", "DELETE"]).is_err());
    assert!(base.clone().held_by(&url, &ws, &["GET"]).is_ok());
    let log = ws.fs().audit_log(0, 100).unwrap();
    let rows: Vec<_> = log.iter().filter(|e| e.origin == "bucket").collect();
    assert!(rows.len() >= 5, "{rows:?}");
    assert!(
        rows.iter().any(|e| e.args.contains("/held/closed/")),
        "{rows:?}"
    );

    // Credentials from secrets bound to the endpoint's host, over http too.
    let keys = |host: &str| {
        Secrets::new(vec![
            Secret::new(
                "AWS_ACCESS_KEY_ID",
                "from-the-store",
                &[host.into()],
                None,
                None,
            )
            .unwrap(),
            Secret::new(
                "AWS_SECRET_ACCESS_KEY",
                "secret-of-store",
                &[host.into()],
                None,
                None,
            )
            .unwrap(),
        ])
        .unwrap()
    };
    let bare = BucketConfig {
        access_key_id: None,
        secret_access_key: None,
        ..base.clone()
    };
    let keyed = bare.clone().with_secrets(&url, &keys("localhost")).unwrap();
    assert_eq!(keyed.access_key_id.as_deref(), Some("from-the-store"));
    assert_eq!(keyed.secret_access_key.as_deref(), Some("secret-of-store"));
    let err = bare
        .clone()
        .with_secrets(&url, &keys("s3.elsewhere.test"))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("AWS_ACCESS_KEY_ID is not bound to the bucket's endpoint"),
        "{err}"
    );
    // No keys kept: the config (and the host's AWS variables) stay as they were.
    let kept = bare
        .clone()
        .with_secrets(&url, &Secrets::default())
        .unwrap();
    assert_eq!(kept.access_key_id, None);
}

/// A cluster's objects: leases and heads written only under their conditions, images pushed
/// piece by piece and hydrated with every piece checked.
mod cluster {
    use std::sync::Arc;

    use computer_bucket::cluster::{ClusterStore, FORMAT, Head, Lease, Lost};
    use object_store::{ObjectStoreExt, PutPayload};

    use super::{bucket, runtime};

    #[test]
    fn leases_and_heads_are_written_only_under_their_conditions() {
        let Some(moto) = crate::moto::shared() else {
            return;
        };
        let (url, objects) = bucket(moto, "cluster-conditions", "c");
        let store = ClusterStore::new(objects, url);
        runtime().block_on(async {
            let mine = Lease::new("a", "http://a", 1, u64::MAX);
            let first = store.put_lease("w", &mine, None).await.unwrap().unwrap();
            // A second create loses, whoever tries.
            let theirs = Lease::new("b", "http://b", 1, u64::MAX);
            assert_eq!(
                store.put_lease("w", &theirs, None).await.unwrap(),
                Err(Lost)
            );
            // A renewal (a later expiry) over the version read wins; a write over an older
            // version loses.
            let later = Lease::new("a", "http://a", 1, u64::MAX - 1);
            let renewed = store
                .put_lease("w", &later, Some(&first))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                store.put_lease("w", &theirs, Some(&first)).await.unwrap(),
                Err(Lost)
            );
            let read = store.lease("w").await.unwrap().unwrap();
            assert_eq!(read.value.node, "a");
            assert_eq!(read.version.e_tag, renewed.e_tag);

            let head = Head {
                format: FORMAT,
                generation: 1,
                image: Some("images/1-1.json".into()),
                deleted: false,
                jobs: vec![computer_bucket::cluster::JobNote {
                    id: 3,
                    command: "sleep 60".into(),
                    node: "a".into(),
                }],
                next_job: 4,
            };
            let v1 = store.put_head("w", &head, None).await.unwrap().unwrap();
            let next = Head {
                generation: 2,
                ..head.clone()
            };
            let v2 = store
                .put_head("w", &next, Some(&v1))
                .await
                .unwrap()
                .unwrap();
            // The fenced-out owner, still holding v1, cannot publish.
            assert_eq!(
                store.put_head("w", &head, Some(&v1)).await.unwrap(),
                Err(Lost)
            );
            assert_eq!(store.head("w").await.unwrap().unwrap().value, next);
            assert_ne!(v1.e_tag, v2.e_tag);
            assert!(store.head("none").await.unwrap().is_none());

            store.add_to_index("w").await.unwrap();
            store.add_to_index("v").await.unwrap();
            assert_eq!(store.list().await.unwrap(), ["v", "w"]);
            store.remove_from_index("v").await.unwrap();
            store.remove_from_index("v").await.unwrap();
            assert_eq!(store.list().await.unwrap(), ["w"]);
        });
    }

    #[test]
    fn images_send_and_fetch_only_changed_pieces_and_refuse_tampered_ones() {
        let Some(moto) = crate::moto::shared() else {
            return;
        };
        let (url, objects) = bucket(moto, "cluster-images", "c");
        let store = ClusterStore::new(Arc::clone(&objects), url);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.db");
        let piece = computer_bucket::cluster::PIECE as usize;
        // Ten pieces and a half, each different.
        let mut bytes: Vec<u8> = (0..piece * 21 / 2)
            .map(|i| ((i / piece) as u8).wrapping_mul(31) ^ (i as u8))
            .collect();
        std::fs::write(&file, &bytes).unwrap();
        runtime().block_on(async {
            let first = store.push_image("w", &file, (1, 1), None).await.unwrap();
            assert_eq!(first.pieces_uploaded, 11);
            assert_eq!(first.image.size, bytes.len() as u64);
            // One byte changed: one piece sent.
            bytes[piece * 3 + 7] ^= 0xff;
            std::fs::write(&file, &bytes).unwrap();
            let second = store
                .push_image("w", &file, (1, 2), Some(&first.image))
                .await
                .unwrap();
            assert_eq!(second.pieces_uploaded, 1);
            let image = store.image("w", &second.key).await.unwrap();
            assert_eq!(image, second.image);

            // Hydrating next to the first copy fetches only the changed piece.
            let old = dir.path().join("old.db");
            store.hydrate(&first.image, &old, None).await.unwrap();
            let new = dir.path().join("new.db");
            let stats = store.hydrate(&image, &new, Some(&old)).await.unwrap();
            assert_eq!((stats.pieces_downloaded, stats.pieces_reused), (1, 10));
            assert_eq!(std::fs::read(&new).unwrap(), bytes);

            // A piece whose bytes were replaced in the bucket is refused.
            let changed = &image.pieces[3];
            let key = object_store::path::Path::from(format!("c/chunks/{changed}"));
            objects
                .put(&key, PutPayload::from(vec![0u8; piece]))
                .await
                .unwrap();
            let err = store.hydrate(&image, &new, None).await.unwrap_err();
            assert!(err.to_string().contains("does not match its hash"), "{err}");
            // An image naming a piece outside chunks/ is refused before anything is fetched.
            let mut bad = image.clone();
            bad.pieces[0] = "../../index/w".into();
            let err = store.hydrate(&bad, &new, None).await.unwrap_err();
            assert!(err.to_string().contains("a piece named"), "{err}");
            let mut huge = image.clone();
            huge.size = u64::MAX;
            let err = store.hydrate(&huge, &new, None).await.unwrap_err();
            assert!(err.to_string().contains("MAX_SIZE"), "{err}");
        });
    }
}
