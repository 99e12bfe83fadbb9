#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/file.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#if defined(__linux__)
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#if defined(__APPLE__)
#include <sys/attr.h>
#endif

#if defined(__linux__)
const unsigned int DOCPKG_RENAME_NOREPLACE = 1u << 0; /* RENAME_NOREPLACE */
const unsigned int DOCPKG_RENAME_EXCHANGE = 1u << 1;  /* RENAME_EXCHANGE */
#elif defined(__APPLE__)
const unsigned int DOCPKG_RENAME_NOREPLACE = RENAME_EXCL;
const unsigned int DOCPKG_RENAME_EXCHANGE = RENAME_SWAP;
#else
const unsigned int DOCPKG_RENAME_NOREPLACE = 1u << 0;
const unsigned int DOCPKG_RENAME_EXCHANGE = 1u << 1;
#endif

int docpkg_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
#if defined(__linux__) && defined(SYS_renameat2)
  // Call the syscall directly: glibc's wrapper only exists from 2.28 on.
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
#elif defined(__APPLE__)
  return renameatx_np(olddirfd, oldpath, newdirfd, newpath, flags);
#else
  if (flags == 0) return renameat(olddirfd, oldpath, newdirfd, newpath);
  errno = ENOSYS;
  return -1;
#endif
}

int docpkg_ficlone(int dest_fd, int src_fd) {
#if defined(__linux__) && defined(FICLONE)
  return ioctl(dest_fd, FICLONE, src_fd);
#else
  (void)dest_fd; (void)src_fd;
  errno = EOPNOTSUPP;
  return -1;
#endif
}

ssize_t docpkg_copy_file_range(int fd_in, int fd_out, size_t length) {
#if defined(__linux__) && defined(SYS_copy_file_range)
  return (ssize_t)syscall(SYS_copy_file_range, fd_in, NULL, fd_out, NULL, length, 0u);
#else
  (void)fd_in; (void)fd_out; (void)length;
  errno = ENOSYS;
  return -1;
#endif
}

int docpkg_full_fsync(int fd) {
#if defined(__APPLE__)
  if (fcntl(fd, F_FULLFSYNC) == 0) return 0;
#endif
  return fsync(fd);
}

int docpkg_start_writeback(int fd) {
#if defined(__linux__)
  return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  return 0;
#endif
}

int docpkg_syncfs(int fd) {
#if defined(__linux__)
  return syncfs(fd);
#else
  sync();
  return docpkg_full_fsync(fd);
#endif
}

int docpkg_flock(int fd, int exclusive, int nonblocking) {
  int operation = exclusive ? LOCK_EX : LOCK_UN;
  if (nonblocking) operation |= LOCK_NB;
  return flock(fd, operation);
}

int docpkg_flock_shared(int fd, int nonblocking) { return flock(fd, nonblocking ? LOCK_SH | LOCK_NB : LOCK_SH); }

int docpkg_ofd_lock(int fd, int type, long long offset) {
#if defined(F_OFD_SETLK)
  struct flock lock;
  memset(&lock, 0, sizeof lock);
  lock.l_type = type == 2 ? F_WRLCK : (type == 1 ? F_RDLCK : F_UNLCK);
  lock.l_whence = SEEK_SET;
  lock.l_start = (off_t)offset;
  lock.l_len = 1;
  return fcntl(fd, F_OFD_SETLK, &lock);
#else
  (void)fd;
  (void)type;
  (void)offset;
  errno = ENOSYS;
  return -1;
#endif
}

#if defined(O_TMPFILE)
const int DOCPKG_O_TMPFILE = O_TMPFILE;
#else
const int DOCPKG_O_TMPFILE = 0;
#endif

#if defined(SEEK_DATA) && defined(SEEK_HOLE)
const int DOCPKG_SEEK_DATA = SEEK_DATA;
const int DOCPKG_SEEK_HOLE = SEEK_HOLE;
#else
const int DOCPKG_SEEK_DATA = -1;
const int DOCPKG_SEEK_HOLE = -1;
#endif

static int docpkg_signal_write_end = -1;

static void docpkg_signal_to_pipe(int signal_number) {
  int saved = errno;
  unsigned char byte = (unsigned char)signal_number;
  (void)write(docpkg_signal_write_end, &byte, 1); /* async-signal-safe */
  errno = saved;
}

int docpkg_termination_signal_pipe(void) {
  int ends[2];
  if (pipe(ends) != 0) return -1;
  fcntl(ends[0], F_SETFD, FD_CLOEXEC);
  fcntl(ends[1], F_SETFD, FD_CLOEXEC);
  docpkg_signal_write_end = ends[1];
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = docpkg_signal_to_pipe;
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++) {
    if (sigaction(signals[i], &action, NULL) != 0) return -1;
  }
  return ends[0];
}

#if defined(O_PATH)
const int DOCPKG_O_PATH = O_PATH;
#else
const int DOCPKG_O_PATH = O_RDONLY;
#endif

int docpkg_file_system_type(int fd, long long *type) {
#if defined(__linux__)
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    *type = (long long)info.f_type;
#else
    (void)fd;
    *type = 0;
#endif
    return 0;
}

int docpkg_mount_id(int fd, unsigned long long *id) {
#if defined(__linux__) && defined(STATX_MNT_ID)
  struct statx status;
  memset(&status, 0, sizeof status);
  if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &status) != 0) return -1;
  if (!(status.stx_mask & STATX_MNT_ID)) {
    errno = ENOSYS;
    return -1;
  }
  *id = (unsigned long long)status.stx_mnt_id;
  return 0;
#else
  (void)fd;
  (void)id;
  errno = ENOSYS;
  return -1;
#endif
}

int docpkg_birth_time(int dirfd, const char *path, long long *seconds, unsigned int *nanoseconds) {
#if defined(__linux__) && defined(STATX_BTIME)
  struct statx status;
  memset(&status, 0, sizeof status);
  if (statx(dirfd, path, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &status) != 0) return -1;
  if (!(status.stx_mask & STATX_BTIME)) {
    errno = ENOSYS;
    return -1;
  }
  *seconds = (long long)status.stx_btime.tv_sec;
  *nanoseconds = status.stx_btime.tv_nsec;
  return 0;
#elif defined(__APPLE__)
  struct stat status;
  if (fstatat(dirfd, path, &status, AT_SYMLINK_NOFOLLOW) != 0) return -1;
  *seconds = (long long)status.st_birthtimespec.tv_sec;
  *nanoseconds = (unsigned int)status.st_birthtimespec.tv_nsec;
  return 0;
#else
  (void)dirfd;
  (void)path;
  (void)seconds;
  (void)nanoseconds;
  errno = ENOSYS;
  return -1;
#endif
}

int docpkg_openat_beneath(int dirfd, const char *path, int flags, mode_t mode) {
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (unsigned long long)(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) ? (unsigned long long)mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
  (void)dirfd;
  (void)path;
  (void)flags;
  (void)mode;
  errno = ENOSYS;
  return -1;
#endif
}

#if defined(__linux__)
/// Whether `path` in `dirfd` (`dirfd` itself for an empty path; for a name in a directory, that directory's
/// file system) is on overlayfs, whose directories keep their inode number but take the birth time of the
/// upper layer's copy when first changed: there a birth time does not tell one directory from another.
static int docpkg_on_overlay(int dirfd, const char *path) {
  struct statfs fs;
  int result = (dirfd == AT_FDCWD && path[0] != '\0') ? statfs(path, &fs) : fstatfs(dirfd, &fs);
  return result == 0 && (unsigned long)fs.f_type == 0x794C7630UL;
}
#endif

int docpkg_identity(int dirfd, const char *path, unsigned long long *device, unsigned long long *inode,
                    int *is_directory, long long *birth_seconds, unsigned int *birth_nanoseconds, int *has_birth) {
  *has_birth = 0;
  int flags = AT_SYMLINK_NOFOLLOW;
#if defined(__linux__) && defined(STATX_BTIME)
  if (path[0] == '\0') flags |= AT_EMPTY_PATH;
  struct statx status;
  memset(&status, 0, sizeof status);
  if (statx(dirfd, path, flags, STATX_TYPE | STATX_INO | STATX_BTIME, &status) == 0) {
    *device = (unsigned long long)makedev(status.stx_dev_major, status.stx_dev_minor);
    *inode = (unsigned long long)status.stx_ino;
    *is_directory = S_ISDIR(status.stx_mode) ? 1 : 0;
    if ((status.stx_mask & STATX_BTIME) && !docpkg_on_overlay(dirfd, path)) {
      *birth_seconds = (long long)status.stx_btime.tv_sec;
      *birth_nanoseconds = status.stx_btime.tv_nsec;
      *has_birth = 1;
    }
    return 0;
  }
  if (errno != ENOSYS) return -1;
#endif
  struct stat plain;
  int result;
  if (path[0] == '\0') {
    result = fstat(dirfd, &plain);
  } else {
    result = fstatat(dirfd, path, &plain, AT_SYMLINK_NOFOLLOW);
  }
  (void)flags;
  if (result != 0) return -1;
  *device = (unsigned long long)plain.st_dev;
  *inode = (unsigned long long)plain.st_ino;
  *is_directory = S_ISDIR(plain.st_mode) ? 1 : 0;
#if defined(__APPLE__)
  *birth_seconds = (long long)plain.st_birthtimespec.tv_sec;
  *birth_nanoseconds = (unsigned int)plain.st_birthtimespec.tv_nsec;
  *has_birth = 1;
#endif
  return 0;
}
