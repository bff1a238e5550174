//! The Docker engine: connecting (API version negotiated), finding, pulling or building
//! images, and removing what a killed host left behind.

use std::collections::HashMap;
use std::path::Path;

use bollard::Docker;
use bollard::query_parameters::{
    CreateImageOptionsBuilder, ListContainersOptionsBuilder, RemoveContainerOptionsBuilder,
};
use futures_util::StreamExt;

use crate::config::{DEFAULT_IMAGE, DEFAULT_PACKAGES};
use crate::error::{ContainerError, Result, docker};
use crate::{image, procs};

/// Label on every container this crate makes.
pub(crate) const LABEL: &str = "computer.backend";
/// Label: the host process that made the container.
pub(crate) const OWNER: &str = "computer.owner";
/// Label: the boot of that process (pids repeat across boots).
pub(crate) const BOOT: &str = "computer.boot";
/// Label: the machine of that process (an engine may serve several).
pub(crate) const HOST: &str = "computer.host";

/// A connection to the Docker engine.
#[derive(Debug, Clone)]
pub struct Engine {
    pub(crate) docker: Docker,
    /// Reached through a local socket: on this machine, where our FUSE mounts and `/proc`
    /// see into its containers.
    local: bool,
}

impl Engine {
    /// Connects to the engine at `DOCKER_HOST`, or the local socket, and agrees on an API
    /// version both sides speak.
    pub async fn connect() -> Result<Engine> {
        let docker =
            Docker::connect_with_defaults().map_err(|e| ContainerError::Engine(e.to_string()))?;
        let local = std::env::var("DOCKER_HOST")
            .map_or(true, |host| host.is_empty() || host.starts_with("unix://"));
        Engine::ready(docker, local).await
    }

    /// Connects to the engine at `host`, written as `DOCKER_HOST` is (`unix:///path` or
    /// `tcp://HOST:PORT`; plain HTTP), and agrees on an API version.
    pub async fn connect_at(host: &str) -> Result<Engine> {
        let engine = |e: bollard::errors::Error| ContainerError::Engine(format!("{host}: {e}"));
        let (docker, local) = match host.strip_prefix("unix://") {
            Some(path) => (
                Docker::connect_with_unix(path, 120, bollard::API_DEFAULT_VERSION)
                    .map_err(engine)?,
                true,
            ),
            None => (
                Docker::connect_with_http(host, 120, bollard::API_DEFAULT_VERSION)
                    .map_err(engine)?,
                false,
            ),
        };
        Engine::ready(docker, local).await
    }

    async fn ready(docker: Docker, local: bool) -> Result<Engine> {
        let docker = docker
            .negotiate_version()
            .await
            .map_err(|e| ContainerError::Engine(e.to_string()))?;
        docker
            .ping()
            .await
            .map_err(|e| ContainerError::Engine(e.to_string()))?;
        Ok(Engine { docker, local })
    }

    /// Whether the engine runs on this machine (its socket is local), so that a FUSE mount
    /// made here can be bound into its containers.
    pub fn is_local(&self) -> bool {
        self.local
    }

    /// Whether `image` is present.
    pub async fn has_image(&self, image: &str) -> bool {
        self.docker.inspect_image(image).await.is_ok()
    }

    /// Makes sure `image` is present: it is, or it can be pulled, or (the default image) it
    /// is built here with debootstrap. `progress` hears about each step.
    pub async fn ensure_image(
        &self,
        image: &str,
        progress: &mut (dyn FnMut(&str) + Send),
    ) -> Result<()> {
        if self.has_image(image).await {
            return Ok(());
        }
        let _making = image::ImageLock::take(image, progress).await?;
        // Another process may have made it while this one waited.
        if self.has_image(image).await {
            return Ok(());
        }
        progress(&format!("{image} is not here; pulling it"));
        let pulled = self.pull(image).await;
        match pulled {
            Ok(()) => Ok(()),
            Err(reason) if image == DEFAULT_IMAGE => {
                progress(&format!(
                    "cannot pull {image} ({reason}); building it locally"
                ));
                image::build_debian(&self.docker, image, DEFAULT_PACKAGES, progress).await
            }
            Err(reason) => Err(ContainerError::Image {
                image: image.to_string(),
                reason: format!("not present and cannot be pulled: {reason}"),
            }),
        }
    }

    async fn pull(&self, image: &str) -> std::result::Result<(), String> {
        let options = CreateImageOptionsBuilder::default()
            .from_image(image)
            .build();
        let mut stream = self.docker.create_image(Some(options), None, None);
        while let Some(step) = stream.next().await {
            step.map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Builds `tag` from Debian bookworm (`debootstrap --variant=minbase`) with `packages`,
    /// trimmed of caches and documentation, and imports it. About a minute and a half on
    /// this kind of machine; needs `debootstrap` and a Debian mirror (`COMPUTER_DEBIAN_MIRROR`,
    /// default `http://deb.debian.org/debian`).
    pub async fn build_debian_image(
        &self,
        tag: &str,
        packages: &[&str],
        progress: &mut (dyn FnMut(&str) + Send),
    ) -> Result<()> {
        let _making = image::ImageLock::take(tag, progress).await?;
        image::build_debian(&self.docker, tag, packages, progress).await
    }

    /// Builds `tag` from the host's static busybox (`FROM scratch`, a few MB, in seconds):
    /// a shell and the common commands, for tests and minimal sandboxes.
    pub async fn build_busybox_image(&self, tag: &str) -> Result<()> {
        let _making = image::ImageLock::take(tag, &mut |_| {}).await?;
        image::build_busybox(&self.docker, tag).await
    }

    /// Removes containers of this crate whose host process is gone (killed, or from an
    /// earlier boot), and dead mounts under `mount_root`. Returns how many containers.
    pub async fn clean_stale(&self, mount_root: &Path) -> Result<usize> {
        let filters = HashMap::from([("label".to_string(), vec![LABEL.to_string()])]);
        let options = ListContainersOptionsBuilder::default()
            .all(true)
            .filters(&filters)
            .build();
        let list = self
            .docker
            .list_containers(Some(options))
            .await
            .map_err(docker("list containers"))?;
        let boot = procs::boot_id();
        let host = procs::host_id();
        let mut removed = 0;
        for container in list {
            let labels = container.labels.unwrap_or_default();
            // Another machine's containers are its own to clean, whatever their boot says
            // (one without the label is judged by its boot alone: it is ours only if that
            // is this boot).
            let ours = match labels.get(HOST) {
                Some(h) => *h == host,
                None => labels.get(BOOT) == Some(&boot),
            };
            if !ours {
                continue;
            }
            let owner_alive = labels.get(BOOT) == Some(&boot)
                && labels
                    .get(OWNER)
                    .and_then(|p| p.parse().ok())
                    .is_some_and(procs::alive);
            let Some(id) = container.id else { continue };
            if owner_alive {
                continue;
            }
            let options = RemoveContainerOptionsBuilder::default()
                .force(true)
                .v(true)
                .build();
            if self
                .docker
                .remove_container(&id, Some(options))
                .await
                .is_ok()
            {
                removed += 1;
            }
        }
        if let Ok(entries) = std::fs::read_dir(mount_root) {
            for entry in entries.flatten() {
                let path = entry.path();
                let _ = computer_fuse::clean_stale(&path);
                if !computer_fuse::is_our_mount(&path) {
                    // Only an empty directory goes: never anything a live mount serves.
                    let _ = std::fs::remove_dir(&path);
                }
            }
        }
        Ok(removed)
    }
}
