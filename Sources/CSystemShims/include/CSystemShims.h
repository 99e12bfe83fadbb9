#ifndef DOCPKG_CSYSTEMSHIMS_H
#define DOCPKG_CSYSTEMSHIMS_H

#include <stddef.h>
#include <sys/types.h>
// getxattr(2) and friends (package identities): `import Glibc` does not include this header.
#include <sys/xattr.h>

// Swift does not define _GNU_SOURCE, so glibc hides these Linux calls from `import Glibc`.
// Each wrapper returns what the call returns and leaves errno set on failure.

/// renameat2(2). `flags` is one of the DOCPKG_RENAME_* constants. Where the platform has no such
/// call, returns -1 with errno ENOSYS (macOS: renamex_np(RENAME_SWAP) backs DOCPKG_RENAME_EXCHANGE).
int docpkg_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

extern const unsigned int DOCPKG_RENAME_NOREPLACE;
extern const unsigned int DOCPKG_RENAME_EXCHANGE;

/// open(2)'s O_PATH: a descriptor that only names a directory (to resolve paths relative to it);
/// O_RDONLY where there is no such flag.
extern const int DOCPKG_O_PATH;

/// ioctl(dest, FICLONE, src): share all extents of `src_fd` with `dest_fd` (a reflink). ENOTSUP/EOPNOTSUPP where unsupported.
int docpkg_ficlone(int dest_fd, int src_fd);

/// copy_file_range(2) of `length` bytes from the current offsets. ENOSYS where unsupported.
ssize_t docpkg_copy_file_range(int fd_in, int fd_out, size_t length);

/// fsync that reaches the disk: F_FULLFSYNC on Darwin, fsync elsewhere.
int docpkg_full_fsync(int fd);

/// sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): start writing the file's dirty pages out, without
/// waiting and without making anything durable (a later fsync or syncfs does). 0 where unsupported.
int docpkg_start_writeback(int fd);

/// syncfs(2): write out everything the file system holding `fd` has cached, and wait.
/// Where there is no syncfs, falls back to sync() then fsync(fd).
int docpkg_syncfs(int fd);

/// The file system type (`fstatfs`'s `f_type`) of the file open as `fd`, in `type`; 0 where the
/// system has none (`type` set to 0). -1 with errno on failure.
int docpkg_file_system_type(int fd, long long *type);

/// flock(fd, LOCK_EX) when `exclusive`, flock(fd, LOCK_UN) otherwise; with `nonblocking`, fails with
/// EWOULDBLOCK instead of waiting.
int docpkg_flock(int fd, int exclusive, int nonblocking);

/// flock(fd, LOCK_SH): a shared lock (readers of a package); with `nonblocking`, fails with EWOULDBLOCK
/// instead of waiting while an exclusive one is held.
int docpkg_flock_shared(int fd, int nonblocking);

/// Tries once to take (`type` 1: read, 2: write) or drop (`type` 0) an open-file-description lock
/// (F_OFD_SETLK) on the one byte at `offset` of `fd`. Fails with EAGAIN or EACCES when another open
/// file description holds a conflicting lock, and with ENOSYS where the platform has no such locks.
int docpkg_ofd_lock(int fd, int type, long long offset);

/// O_TMPFILE (an unnamed file in a directory), or 0 where the platform has none.
extern const int DOCPKG_O_TMPFILE;

/// lseek's SEEK_DATA and SEEK_HOLE (where a sparse file's data and holes begin), or -1 where the
/// platform has none (lseek then fails with EINVAL).
extern const int DOCPKG_SEEK_DATA;
extern const int DOCPKG_SEEK_HOLE;

/// Makes SIGINT, SIGTERM and SIGHUP write their number (one byte) to a new close-on-exec pipe
/// instead of ending the process, once: each handler resets itself (SA_RESETHAND), so a second
/// signal ends the process as usual. Returns the pipe's read end, or -1 (errno set).
int docpkg_termination_signal_pipe(void);

/// The id of the mount that holds `fd` (statx's stx_mnt_id, Linux 5.8+): with st_dev, it tells a file
/// system mounted now from another that had the same device number before. Returns 0 and sets `*id`,
/// or -1 (errno set; ENOSYS where the platform or kernel has no such id).
int docpkg_mount_id(int fd, unsigned long long *id);

/// The birth (creation) time of `path` relative to `dirfd`, not following a last symbolic link (statx's
/// stx_btime on Linux 4.11+, st_birthtimespec on Darwin). Returns 0 and sets `*seconds` and `*nanoseconds`,
/// or -1 (errno set; ENOSYS where the platform, kernel or file system does not record it).
int docpkg_birth_time(int dirfd, const char *path, long long *seconds, unsigned int *nanoseconds);

/// Which inode `path` relative to `dirfd` is, in one call (so that the three describe one inode), not
/// following a last symbolic link; an empty `path` names `dirfd` itself. Sets `*device` (as st_dev),
/// `*inode`, `*is_directory`, and the birth time where it is recorded (statx's stx_btime on Linux 4.11+,
/// st_birthtimespec on Darwin: then `*has_birth` is 1, else 0; never on overlayfs, where a directory keeps
/// its inode number but takes a new birth time when first changed). Returns 0, or -1 with errno set.
int docpkg_identity(int dirfd, const char *path, unsigned long long *device, unsigned long long *inode,
                    int *is_directory, long long *birth_seconds, unsigned int *birth_nanoseconds, int *has_birth);

/// openat2(2) of `path` relative to `dirfd` with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: no component of
/// `path` may be a symbolic link (ELOOP) or lead out of `dirfd` (EXDEV). Returns the descriptor, or -1 with
/// errno set; ENOSYS where the platform or kernel has no such call.
int docpkg_openat_beneath(int dirfd, const char *path, int flags, mode_t mode);

#endif
