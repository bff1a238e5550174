//! `wasi:filesystem/types` and `wasi:filesystem/preopens` over the VFS. Thin: each method
//! checks the descriptor's rights, turns the guest's relative path into a workspace path, and
//! calls the VFS; the VFS owns resolution, limits and POSIX rules.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer_vfs::{
    FileType, OpenFlags as VfsOpenFlags, OpenPath, SetAttr, Stat, TimeSet, VfsError,
};
use wasmtime::component::Resource;
use wasmtime_wasi_io::streams::{DynInputStream, DynOutputStream};

use crate::bindings::wasi::clocks::wall_clock::Datetime;
use crate::bindings::wasi::filesystem::{preopens, types};
use crate::descriptor::{
    Descriptor, Device, DeviceStream, DirStream, FileHandle, FileReader, FileWriter, Kind,
};
use crate::error::{FsError, FsResult, error_code};
use crate::recent::{Listed, Listing, Recent};
use crate::{ROOT_PREOPEN, WasiFsCtxView};
use computer_vfs::Vfs;
use types::{
    Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry, ErrorCode, Filesize,
    MetadataHashValue, NewTimestamp, OpenFlags, PathFlags,
};

/// The `wasi:filesystem` type of an inode of `kind`.
pub fn descriptor_type(kind: FileType) -> DescriptorType {
    match kind {
        FileType::File => DescriptorType::RegularFile,
        FileType::Dir => DescriptorType::Directory,
        FileType::Symlink => DescriptorType::SymbolicLink,
        FileType::Fifo => DescriptorType::Fifo,
        FileType::Socket => DescriptorType::Socket,
        FileType::CharDevice => DescriptorType::CharacterDevice,
        FileType::BlockDevice => DescriptorType::BlockDevice,
    }
}

fn datetime(ns: i64) -> Option<Datetime> {
    Some(Datetime {
        seconds: ns.div_euclid(1_000_000_000) as u64,
        nanoseconds: ns.rem_euclid(1_000_000_000) as u32,
    })
}

fn descriptor_stat(st: &Stat) -> DescriptorStat {
    DescriptorStat {
        type_: descriptor_type(st.kind),
        link_count: st.nlink as u64,
        size: st.size,
        data_access_timestamp: datetime(st.atime),
        data_modification_timestamp: datetime(st.mtime),
        status_change_timestamp: datetime(st.ctime),
    }
}

fn device_stat() -> DescriptorStat {
    DescriptorStat {
        type_: DescriptorType::CharacterDevice,
        link_count: 1,
        size: 0,
        data_access_timestamp: None,
        data_modification_timestamp: None,
        status_change_timestamp: None,
    }
}

fn time_set(t: NewTimestamp) -> Option<TimeSet> {
    match t {
        NewTimestamp::NoChange => None,
        NewTimestamp::Now => Some(TimeSet::Now),
        NewTimestamp::Timestamp(d) => Some(TimeSet::At(
            (d.seconds as i64).saturating_mul(1_000_000_000) + d.nanoseconds as i64,
        )),
    }
}

/// The metadata hash of an inode of a layer (inode numbers repeat across layers).
fn hash(layer: u32, ino: u64) -> MetadataHashValue {
    MetadataHashValue {
        lower: ino,
        upper: layer.into(),
    }
}

impl WasiFsCtxView<'_> {
    fn get(&self, d: &Resource<Descriptor>) -> FsResult<&Descriptor> {
        Ok(self.table.get(d)?)
    }

    /// The tree `layer` names: 0 the workspace, `i + 1` layer `i`.
    fn vfs_of(&self, layer: u32) -> &Arc<Vfs> {
        match layer.checked_sub(1) {
            None => &self.ctx.vfs,
            Some(i) => &self.ctx.layers[i as usize].vfs,
        }
    }

    /// The tree descriptor `d` is in.
    fn vfs(&self, d: &Resource<Descriptor>) -> FsResult<&Arc<Vfs>> {
        Ok(self.vfs_of(self.get(d)?.layer))
    }

    /// The layer of `d`, which must be the layer of `other` (EXDEV otherwise).
    fn same_layer(&self, d: &Resource<Descriptor>, other: &Resource<Descriptor>) -> FsResult<u32> {
        let layer = self.get(d)?.layer;
        if self.get(other)?.layer != layer {
            return Err(ErrorCode::CrossDevice.into());
        }
        Ok(layer)
    }

    /// The directory inode of `d`, or ENOTDIR.
    fn dir(&self, d: &Resource<Descriptor>) -> FsResult<u64> {
        match self.get(d)?.kind {
            Kind::Dir(ino) => Ok(ino),
            _ => Err(ErrorCode::NotDirectory.into()),
        }
    }

    /// The file handle of `d`, or the error a directory or a device gives.
    fn file(&self, d: &Resource<Descriptor>) -> FsResult<&Arc<FileHandle>> {
        match &self.get(d)?.kind {
            Kind::File(handle) => Ok(handle),
            Kind::Dir(_) => Err(ErrorCode::IsDirectory.into()),
            Kind::Device(_) => Err(ErrorCode::Invalid.into()),
        }
    }

    /// The workspace path of `path` relative to directory descriptor `d`. Absolute paths are
    /// refused as WASI requires; `..` is resolved by the VFS and can never leave `/`.
    fn at(&self, d: &Resource<Descriptor>, path: &str) -> FsResult<PathBuf> {
        let dir = self.dir(d)?;
        if path.starts_with('/') {
            return Err(ErrorCode::NotPermitted.into());
        }
        let base = if dir == computer_vfs::ROOT_INO {
            PathBuf::from("/")
        } else {
            self.vfs(d)?.path_of(dir)?.ok_or(ErrorCode::NoEntry)?
        };
        Ok(if path.is_empty() {
            base
        } else {
            base.join(path)
        })
    }

    /// For a path that is one plain name (the common case of std's `read_dir` and
    /// `remove_dir_all`, which work through directory descriptors): the directory's inode and
    /// the name, so the inode API can be used without computing the directory's path.
    fn single_name<'p>(
        &self,
        d: &Resource<Descriptor>,
        path: &'p str,
    ) -> FsResult<Option<(u64, &'p OsStr)>> {
        let dir = self.dir(d)?;
        let plain = !path.is_empty() && !path.contains('/') && path != "." && path != "..";
        Ok(plain.then(|| (dir, OsStr::new(path))))
    }

    /// The attributes of `path` relative to `d`.
    fn stat_path(
        &self,
        d: &Resource<Descriptor>,
        follow: bool,
        path: &str,
    ) -> FsResult<computer_vfs::Stat> {
        if let Some((dir, name)) = self.single_name(d, path)? {
            let st = self.vfs(d)?.lookup(dir, name)?;
            if !(follow && st.kind == FileType::Symlink) {
                return Ok(st);
            }
        }
        let path = self.at(d, path)?;
        let vfs = self.vfs(d)?;
        Ok(if follow {
            vfs.stat(path)?
        } else {
            vfs.lstat(path)?
        })
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, Recent> {
        self.ctx.recent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that the guest changes something: the entries it listed may not be what they were.
    fn changing(&self) {
        self.recent().clear();
    }

    fn can_mutate(&self, d: &Resource<Descriptor>) -> FsResult<()> {
        self.changing();
        let desc = self.get(d)?;
        if desc.layer != 0 {
            return Err(ErrorCode::ReadOnly.into());
        }
        if !desc.flags.contains(DescriptorFlags::MUTATE_DIRECTORY) {
            return Err(ErrorCode::NotPermitted.into());
        }
        Ok(())
    }

    /// Like `at`, for an operation that changes the directory: needs MUTATE_DIRECTORY.
    fn mutate_at(&self, d: &Resource<Descriptor>, path: &str) -> FsResult<PathBuf> {
        self.can_mutate(d)?;
        self.at(d, path)
    }

    /// The file handle of `d` if it has `right`, or the device it is.
    fn file_for(
        &self,
        d: &Resource<Descriptor>,
        right: DescriptorFlags,
    ) -> FsResult<Result<Arc<FileHandle>, Device>> {
        let desc = self.get(d)?;
        if let Kind::Device(device) = desc.kind {
            return Ok(Err(device));
        }
        if !desc.flags.contains(right) {
            return Err(ErrorCode::BadDescriptor.into());
        }
        Ok(Ok(Arc::clone(self.file(d)?)))
    }

    fn push_input(&mut self, stream: DynInputStream) -> FsResult<Resource<DynInputStream>> {
        Ok(self.table.push(stream)?)
    }

    fn push_output(&mut self, stream: DynOutputStream) -> FsResult<Resource<DynOutputStream>> {
        Ok(self.table.push(stream)?)
    }
}

impl preopens::Host for WasiFsCtxView<'_> {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        let flags = if self.ctx.vfs.is_read_only() {
            DescriptorFlags::READ
        } else {
            DescriptorFlags::READ | DescriptorFlags::MUTATE_DIRECTORY
        };
        let root = self.table.push(Descriptor {
            kind: Kind::Dir(computer_vfs::ROOT_INO),
            flags,
            layer: 0,
        })?;
        let mut dirs = vec![(root, ROOT_PREOPEN.to_string())];
        for (i, layer) in self.ctx.layers.iter().enumerate() {
            let dir = self.table.push(Descriptor {
                kind: Kind::Dir(computer_vfs::ROOT_INO),
                flags: DescriptorFlags::READ,
                layer: i as u32 + 1,
            })?;
            dirs.push((dir, layer.path.clone()));
        }
        Ok(dirs)
    }
}

impl types::Host for WasiFsCtxView<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        match err {
            FsError::Code(code) => Ok(code),
            FsError::Trap(e) => Err(e),
        }
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        let err = self.table.get(&err)?;
        Ok(err.downcast_ref::<VfsError>().map(error_code))
    }
}

impl types::HostDescriptor for WasiFsCtxView<'_> {
    fn read_via_stream(
        &mut self,
        d: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<DynInputStream>> {
        match self.file_for(&d, DescriptorFlags::READ)? {
            Err(device) => self.push_input(Box::new(DeviceStream(device))),
            Ok(handle) => self.push_input(Box::new(FileReader {
                handle,
                pos: offset,
            })),
        }
    }

    fn write_via_stream(
        &mut self,
        d: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<DynOutputStream>> {
        match self.file_for(&d, DescriptorFlags::WRITE)? {
            Err(device) => self.push_output(Box::new(DeviceStream(device))),
            Ok(handle) => self.push_output(Box::new(FileWriter {
                handle,
                pos: Some(offset),
            })),
        }
    }

    fn append_via_stream(
        &mut self,
        d: Resource<Descriptor>,
    ) -> FsResult<Resource<DynOutputStream>> {
        let shared = match self.file_for(&d, DescriptorFlags::WRITE)? {
            Ok(shared) => shared,
            Err(device) => return self.push_output(Box::new(DeviceStream(device))),
        };
        let flags = VfsOpenFlags {
            write: true,
            append: true,
            ..Default::default()
        };
        // Its own handle: appending is a property of the VFS handle.
        let handle = Arc::new(FileHandle::open(shared.vfs(), shared.ino, flags)?);
        self.push_output(Box::new(FileWriter { handle, pos: None }))
    }

    fn advise(
        &mut self,
        d: Resource<Descriptor>,
        _: Filesize,
        _: Filesize,
        _: Advice,
    ) -> FsResult<()> {
        self.get(&d)?;
        Ok(())
    }

    fn sync_data(&mut self, d: Resource<Descriptor>) -> FsResult<()> {
        self.sync(d)
    }

    fn get_flags(&mut self, d: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        Ok(self.get(&d)?.flags)
    }

    fn get_type(&mut self, d: Resource<Descriptor>) -> FsResult<DescriptorType> {
        Ok(match &self.get(&d)?.kind {
            Kind::Dir(_) => DescriptorType::Directory,
            Kind::File(_) => DescriptorType::RegularFile,
            Kind::Device(_) => DescriptorType::CharacterDevice,
        })
    }

    fn set_size(&mut self, d: Resource<Descriptor>, size: Filesize) -> FsResult<()> {
        self.changing();
        if !self.get(&d)?.flags.contains(DescriptorFlags::WRITE) {
            return Err(ErrorCode::BadDescriptor.into());
        }
        let ino = self.file(&d)?.ino;
        let attr = SetAttr {
            size: Some(size),
            ..Default::default()
        };
        self.vfs(&d)?.setattr(ino, &attr)?;
        Ok(())
    }

    fn set_times(
        &mut self,
        d: Resource<Descriptor>,
        atime: NewTimestamp,
        mtime: NewTimestamp,
    ) -> FsResult<()> {
        self.changing();
        let desc = self.get(&d)?;
        if desc.layer != 0 {
            return Err(ErrorCode::ReadOnly.into());
        }
        let ino = match &desc.kind {
            Kind::Dir(ino) => *ino,
            Kind::File(handle) => handle.ino,
            Kind::Device(_) => return Ok(()),
        };
        let attr = SetAttr {
            atime: time_set(atime),
            mtime: time_set(mtime),
            ..Default::default()
        };
        self.ctx.vfs.setattr(ino, &attr)?;
        Ok(())
    }

    fn read(
        &mut self,
        d: Resource<Descriptor>,
        len: Filesize,
        offset: Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        let handle = match self.file_for(&d, DescriptorFlags::READ)? {
            Ok(handle) => handle,
            Err(device) => {
                let len = usize::try_from(len).unwrap_or(usize::MAX);
                return Ok(device.read(len).map_or((Vec::new(), true), |b| (b, false)));
            }
        };
        let data = handle.vfs().read(handle.fh, offset, len)?;
        let size = handle.vfs().getattr(handle.ino)?.size;
        let end = offset + data.len() as u64 >= size;
        Ok((data, end))
    }

    fn write(
        &mut self,
        d: Resource<Descriptor>,
        buf: Vec<u8>,
        offset: Filesize,
    ) -> FsResult<Filesize> {
        self.changing();
        let Ok(handle) = self.file_for(&d, DescriptorFlags::WRITE)? else {
            return Ok(buf.len() as u64);
        };
        Ok(handle.vfs().write(handle.fh, offset, &buf)? as u64)
    }

    fn read_directory(&mut self, d: Resource<Descriptor>) -> FsResult<Resource<DirStream>> {
        let ino = self.dir(&d)?;
        let layer = self.get(&d)?.layer;
        let entries = (self.vfs(&d)?.readdir(ino)?.into_iter())
            .map(|e| Listed {
                name: e
                    .name
                    .into_string()
                    .unwrap_or_else(|n| n.to_string_lossy().into_owned()),
                ino: e.ino,
                kind: e.kind,
            })
            .collect();
        let listing = Arc::new(Listing::new(layer, ino, entries));
        self.recent().listed(listing.clone());
        Ok(self.table.push(DirStream { listing, next: 0 })?)
    }

    fn sync(&mut self, d: Resource<Descriptor>) -> FsResult<()> {
        if let Kind::File(handle) = &self.get(&d)?.kind {
            handle.vfs().fsync(handle.fh)?;
        }
        Ok(())
    }

    fn create_directory_at(&mut self, d: Resource<Descriptor>, path: String) -> FsResult<()> {
        let path = self.mutate_at(&d, &path)?;
        self.ctx.vfs.create_dir(path)?;
        Ok(())
    }

    fn stat(&mut self, d: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        let ino = match &self.get(&d)?.kind {
            Kind::Dir(ino) => *ino,
            Kind::File(handle) => handle.ino,
            Kind::Device(_) => return Ok(device_stat()),
        };
        Ok(descriptor_stat(&self.vfs(&d)?.getattr(ino)?))
    }

    fn stat_at(
        &mut self,
        d: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let layer = self.get(&d)?.layer;
        if layer == 0
            && self.dir(&d)? == computer_vfs::ROOT_INO
            && Device::at(&Path::new("/").join(&path)).is_some()
        {
            return Ok(device_stat());
        }
        let follow = flags.contains(PathFlags::SYMLINK_FOLLOW);
        let st = self.stat_path(&d, follow, &path)?;
        let dir = self.dir(&d)?;
        self.recent().statted(layer, dir, path, follow, st.ino);
        Ok(descriptor_stat(&st))
    }

    fn set_times_at(
        &mut self,
        d: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
        atime: NewTimestamp,
        mtime: NewTimestamp,
    ) -> FsResult<()> {
        self.changing();
        if self.get(&d)?.layer != 0 {
            return Err(ErrorCode::ReadOnly.into());
        }
        let path = self.at(&d, &path)?;
        let attr = SetAttr {
            atime: time_set(atime),
            mtime: time_set(mtime),
            ..Default::default()
        };
        let follow = flags.contains(PathFlags::SYMLINK_FOLLOW);
        self.ctx.vfs.setattr_path(path, follow, &attr)?;
        Ok(())
    }

    fn link_at(
        &mut self,
        d: Resource<Descriptor>,
        old_flags: PathFlags,
        old_path: String,
        new_d: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        self.same_layer(&d, &new_d)?;
        let old = self.at(&d, &old_path)?;
        let new = self.mutate_at(&new_d, &new_path)?;
        if old_flags.contains(PathFlags::SYMLINK_FOLLOW) {
            let target = self.ctx.vfs.stat(&old)?;
            let parent = new.parent().ok_or(ErrorCode::Exist)?;
            let name = new.file_name().ok_or(ErrorCode::Exist)?;
            let parent = self.ctx.vfs.stat(parent)?;
            self.ctx.vfs.link(target.ino, parent.ino, name)?;
        } else {
            self.ctx.vfs.hard_link(old, new)?;
        }
        Ok(())
    }

    fn open_at(
        &mut self,
        d: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        open_flags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let path = self.at(&d, &path)?;
        let (parent_flags, layer) = {
            let parent = self.get(&d)?;
            (parent.flags, parent.layer)
        };
        let writes = flags.contains(DescriptorFlags::WRITE)
            || open_flags.contains(OpenFlags::CREATE)
            || open_flags.contains(OpenFlags::TRUNCATE);
        if writes {
            self.can_mutate(&d)?;
        }
        if layer == 0
            && let Some(device) = Device::at(&path)
        {
            return Ok(self.table.push(Descriptor {
                kind: Kind::Device(device),
                flags,
                layer,
            })?);
        }
        let opts = OpenPath {
            create: open_flags.contains(OpenFlags::CREATE),
            exclusive: open_flags.contains(OpenFlags::EXCLUSIVE),
            truncate: open_flags.contains(OpenFlags::TRUNCATE),
            directory: open_flags.contains(OpenFlags::DIRECTORY),
            follow: path_flags.contains(PathFlags::SYMLINK_FOLLOW),
            perm: 0o644,
        };
        let vfs = Arc::clone(self.vfs_of(layer));
        let st = vfs.open_path(&path, &opts)?;
        let kind = match st.kind {
            FileType::Dir if flags.contains(DescriptorFlags::WRITE) => {
                return Err(ErrorCode::IsDirectory.into());
            }
            FileType::Dir => {
                // As in wasmtime-wasi, a directory inherits the right to change it from the
                // directory it was opened from (std opens subdirectories read-only, then
                // unlinks through them).
                let inherited = parent_flags & DescriptorFlags::MUTATE_DIRECTORY;
                return Ok(self.table.push(Descriptor {
                    kind: Kind::Dir(st.ino),
                    flags: flags | inherited,
                    layer,
                })?);
            }
            FileType::Symlink => return Err(ErrorCode::Loop.into()),
            // A FIFO, socket or device node: the VFS refuses it (no-such-device, ENXIO).
            FileType::File
            | FileType::Fifo
            | FileType::Socket
            | FileType::CharDevice
            | FileType::BlockDevice => {
                let open = VfsOpenFlags {
                    read: flags.contains(DescriptorFlags::READ),
                    write: flags.contains(DescriptorFlags::WRITE),
                    ..Default::default()
                };
                Kind::File(Arc::new(FileHandle::open_stat(&vfs, &st, open)?))
            }
        };
        Ok(self.table.push(Descriptor { kind, flags, layer })?)
    }

    fn readlink_at(&mut self, d: Resource<Descriptor>, path: String) -> FsResult<String> {
        let path = self.at(&d, &path)?;
        let target = self.vfs(&d)?.read_link(path)?;
        target
            .into_os_string()
            .into_string()
            .map_err(|_| ErrorCode::IllegalByteSequence.into())
    }

    fn remove_directory_at(&mut self, d: Resource<Descriptor>, path: String) -> FsResult<()> {
        self.can_mutate(&d)?;
        if let Some((dir, name)) = self.single_name(&d, &path)? {
            self.ctx.vfs.rmdir(dir, name)?;
            return Ok(());
        }
        let path = self.at(&d, &path)?;
        self.ctx.vfs.remove_dir(path)?;
        Ok(())
    }

    fn rename_at(
        &mut self,
        d: Resource<Descriptor>,
        old_path: String,
        new_d: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        self.same_layer(&d, &new_d)?;
        let old = self.mutate_at(&d, &old_path)?;
        let new = self.mutate_at(&new_d, &new_path)?;
        self.ctx.vfs.rename(old, new)?;
        Ok(())
    }

    fn symlink_at(
        &mut self,
        d: Resource<Descriptor>,
        target: String,
        path: String,
    ) -> FsResult<()> {
        let path = self.mutate_at(&d, &path)?;
        self.ctx.vfs.symlink(target, path)?;
        Ok(())
    }

    fn unlink_file_at(&mut self, d: Resource<Descriptor>, path: String) -> FsResult<()> {
        self.can_mutate(&d)?;
        if let Some((dir, name)) = self.single_name(&d, &path)? {
            self.ctx.vfs.unlink(dir, name)?;
            return Ok(());
        }
        let path = self.at(&d, &path)?;
        self.ctx.vfs.remove_file(path)?;
        Ok(())
    }

    fn is_same_object(
        &mut self,
        a: Resource<Descriptor>,
        b: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        let ino = |d: &Descriptor| match &d.kind {
            Kind::Dir(ino) => Some((d.layer, *ino)),
            Kind::File(handle) => Some((d.layer, handle.ino)),
            Kind::Device(_) => None,
        };
        let (a, b) = (ino(self.table.get(&a)?), ino(self.table.get(&b)?));
        Ok(a.is_some() && a == b)
    }

    fn metadata_hash(&mut self, d: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        let desc = self.get(&d)?;
        Ok(match &desc.kind {
            Kind::Dir(ino) => hash(desc.layer, *ino),
            Kind::File(handle) => hash(desc.layer, handle.ino),
            Kind::Device(device) => hash(0, *device as u64),
        })
    }

    fn metadata_hash_at(
        &mut self,
        d: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        let follow = flags.contains(PathFlags::SYMLINK_FOLLOW);
        let dir = self.dir(&d)?;
        let layer = self.get(&d)?.layer;
        if let Some(ino) = self.recent().ino(layer, dir, &path, follow) {
            return Ok(hash(layer, ino));
        }
        Ok(hash(layer, self.stat_path(&d, follow, &path)?.ino))
    }

    fn drop(&mut self, d: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.table.delete(d)?;
        Ok(())
    }
}

impl types::HostDirectoryEntryStream for WasiFsCtxView<'_> {
    fn read_directory_entry(&mut self, s: Resource<DirStream>) -> FsResult<Option<DirectoryEntry>> {
        let stream = self.table.get_mut(&s)?;
        let Some(e) = stream.listing.entries.get(stream.next) else {
            return Ok(None);
        };
        stream.next += 1;
        Ok(Some(DirectoryEntry {
            type_: descriptor_type(e.kind),
            name: e.name.clone(),
        }))
    }

    fn drop(&mut self, s: Resource<DirStream>) -> wasmtime::Result<()> {
        self.table.delete(s)?;
        Ok(())
    }
}
