//! Bucket transfers against a local S3 server (moto), beside a plain concurrent client
//! (object_store alone, the same concurrency, no workspace) in the same run; and the bytes a
//! snapshot push uploads for a changed workspace. `cargo bench -p computer-bucket`.

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use computer::Workspace;
use computer_bucket::{BucketConfig, BucketUrl};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

fn main() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut moto = Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("moto_server (pip install 'moto[server]')");
    let endpoint = format!("http://127.0.0.1:{port}");
    while reqwest::blocking::get(&endpoint).is_err() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let config = BucketConfig {
        endpoint: Some(endpoint.clone()),
        region: Some("us-east-1".into()),
        access_key_id: Some("bench".into()),
        secret_access_key: Some("bench".into()),
        allow_http: true,
        ..Default::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = reqwest::blocking::Client::new();
    let open = |bucket: &str, prefix: &str| {
        client.put(format!("{endpoint}/{bucket}")).send().unwrap();
        let url = BucketUrl::parse(&format!("s3://{bucket}/{prefix}")).unwrap();
        let store = computer_bucket::open_store_with(&url, &config).unwrap();
        (url, store)
    };
    println!("| operation | computer s | plain object_store client s | ratio |");
    println!("|---|---:|---:|---:|");
    for (label, count, size) in [
        ("10,000 objects of 1 KiB", 10_000usize, 1024usize),
        ("one 256 MiB object", 1, 256 << 20),
    ] {
        let data: Vec<Vec<u8>> = (0..count).map(|n| vec![(n % 251) as u8; size]).collect();
        // Baseline upload and download: object_store alone, 16 at a time.
        let (_, plain) = open(&format!("plain-{count}"), "p");
        let started = Instant::now();
        rt.block_on(put_all(&plain, &data));
        let plain_up = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let got = rt.block_on(get_all(&plain, count));
        let plain_down = started.elapsed().as_secs_f64();
        assert_eq!(got, (count * size) as u64);
        // computer: export a workspace folder, import it back.
        let ws = Workspace::in_memory().unwrap();
        ws.fs().create_dir_all("/workspace/p").unwrap();
        for (n, d) in data.iter().enumerate() {
            ws.fs().write_file(format!("/workspace/p/{n}"), d).unwrap();
        }
        let (url, store) = open(&format!("computer-{count}"), "p");
        let started = Instant::now();
        rt.block_on(computer_bucket::export(
            Arc::clone(&store),
            &url,
            &ws,
            std::path::Path::new("/workspace/p"),
            false,
            &mut |_| {},
        ))
        .unwrap();
        let up = started.elapsed().as_secs_f64();
        let target = Workspace::in_memory().unwrap();
        let started = Instant::now();
        let stats = rt
            .block_on(computer_bucket::import(
                Arc::clone(&store),
                &url,
                &target,
                std::path::Path::new("/workspace/q"),
                &mut |_| {},
            ))
            .unwrap();
        let down = started.elapsed().as_secs_f64();
        assert_eq!(stats.bytes, (count * size) as u64);
        println!(
            "| export {label} | {up:.2} | {plain_up:.2} | {:.2} |",
            up / plain_up
        );
        println!(
            "| import {label} | {down:.2} | {plain_down:.2} | {:.2} |",
            down / plain_down
        );
    }
    // Snapshot push of a changed workspace: 2,000 files of 4 KiB and one of 64 MiB.
    let ws = Workspace::in_memory().unwrap();
    ws.fs().create_dir_all("/workspace/src").unwrap();
    for n in 0..2000 {
        ws.fs()
            .write_file(format!("/workspace/src/{n}.txt"), format!("{n:04096}"))
            .unwrap();
    }
    let big: Vec<u8> = (0..64 << 20).map(|i: usize| (i % 239) as u8).collect();
    ws.fs().write_file("/workspace/big.bin", &big).unwrap();
    let size = 2000 * 4096 + big.len();
    let (url, store) = open("snapshots", "ws");
    let first = rt
        .block_on(computer_bucket::push(Arc::clone(&store), &url, &ws, "v1"))
        .unwrap();
    for n in 0..20 {
        ws.fs()
            .write_file(format!("/workspace/src/{n}.txt"), "edited\n")
            .unwrap();
    }
    ws.fs()
        .write_at("/workspace/big.bin", 10 << 20, b"edit")
        .unwrap();
    let started = Instant::now();
    let second = rt
        .block_on(computer_bucket::push(Arc::clone(&store), &url, &ws, "v2"))
        .unwrap();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "\nSnapshot push: workspace of {:.1} MiB; first push uploaded {:.1} MiB ({} chunks); after \
         editing 20 small files and 4 bytes of the big one, the second push uploaded {:.1} KiB \
         ({} of {} chunks, manifest included) in {secs:.2} s",
        size as f64 / 1048576.0,
        first.bytes_uploaded as f64 / 1048576.0,
        first.chunks_uploaded,
        second.bytes_uploaded as f64 / 1024.0,
        second.chunks_uploaded,
        second.chunks
    );
    let _ = moto.kill();
    let _ = moto.wait();
}

async fn put_all(store: &Arc<dyn ObjectStore>, data: &[Vec<u8>]) {
    futures::stream::iter(data.iter().enumerate())
        .map(|(n, d)| {
            let store = Arc::clone(store);
            let d = d.clone();
            async move {
                store
                    .put(&ObjectPath::from(format!("p/{n}")), PutPayload::from(d))
                    .await
            }
        })
        .buffer_unordered(computer_bucket::CONCURRENCY)
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
}

async fn get_all(store: &Arc<dyn ObjectStore>, count: usize) -> u64 {
    let sizes: Vec<u64> = futures::stream::iter(0..count)
        .map(|n| {
            let store = Arc::clone(store);
            async move {
                let got = store.get(&ObjectPath::from(format!("p/{n}"))).await?;
                Ok::<_, object_store::Error>(got.bytes().await?.len() as u64)
            }
        })
        .buffer_unordered(computer_bucket::CONCURRENCY)
        .try_collect()
        .await
        .unwrap();
    sizes.iter().sum()
}
