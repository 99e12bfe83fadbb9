// The libarchive functions DocumentArchive calls, as one list: F(return type, name, parameters, arguments) for
// those that return a value, V(name, parameters, arguments) for those that return nothing.
// CArchive.h declares a `docpkg_` wrapper for each; LibArchiveLoader.c resolves them on first use.
// A new call into libarchive is one more line here.
#ifndef DOCPKG_LIBARCHIVE_FUNCTIONS_H
#define DOCPKG_LIBARCHIVE_FUNCTIONS_H

#define DOCPKG_LIBARCHIVE_FUNCTIONS(F, V) \
  F(struct archive *, archive_read_new, (void), ()) \
  F(int, archive_read_free, (struct archive *a), (a)) \
  F(int, archive_read_support_filter_bzip2, (struct archive *a), (a)) \
  F(int, archive_read_support_filter_gzip, (struct archive *a), (a)) \
  F(int, archive_read_support_filter_xz, (struct archive *a), (a)) \
  F(int, archive_read_support_filter_zstd, (struct archive *a), (a)) \
  F(int, archive_read_support_format_raw, (struct archive *a), (a)) \
  F(int, archive_read_support_format_tar, (struct archive *a), (a)) \
  F(int, archive_read_support_format_zip_seekable, (struct archive *a), (a)) \
  F(int, archive_read_open_fd, (struct archive *a, int fd, size_t blockSize), (a, fd, blockSize)) \
  F(int, archive_read_set_callback_data, (struct archive *a, void *data), (a, data)) \
  F(int, archive_read_set_read_callback, (struct archive *a, archive_read_callback *read), (a, read)) \
  F(int, archive_read_set_seek_callback, (struct archive *a, archive_seek_callback *seek), (a, seek)) \
  F(int, archive_read_open1, (struct archive *a), (a)) \
  F(int, archive_read_next_header, (struct archive *a, struct archive_entry **entry), (a, entry)) \
  F(int, archive_read_data_block, \
    (struct archive *a, const void **buffer, size_t *size, la_int64_t *offset), (a, buffer, size, offset)) \
  F(struct archive *, archive_write_new, (void), ()) \
  F(int, archive_write_free, (struct archive *a), (a)) \
  F(int, archive_write_add_filter_bzip2, (struct archive *a), (a)) \
  F(int, archive_write_add_filter_gzip, (struct archive *a), (a)) \
  F(int, archive_write_add_filter_xz, (struct archive *a), (a)) \
  F(int, archive_write_add_filter_zstd, (struct archive *a), (a)) \
  F(int, archive_write_set_filter_option, \
    (struct archive *a, const char *module, const char *option, const char *value), (a, module, option, value)) \
  F(int, archive_write_set_format_pax, (struct archive *a), (a)) \
  F(int, archive_write_set_bytes_in_last_block, (struct archive *a, int bytes), (a, bytes)) \
  F(int, archive_write_open_fd, (struct archive *a, int fd), (a, fd)) \
  F(int, archive_write_header, (struct archive *a, struct archive_entry *entry), (a, entry)) \
  F(la_ssize_t, archive_write_data, (struct archive *a, const void *buffer, size_t size), (a, buffer, size)) \
  F(int, archive_write_close, (struct archive *a), (a)) \
  F(int, archive_errno, (struct archive *a), (a)) \
  F(const char *, archive_error_string, (struct archive *a), (a)) \
  F(int, archive_format, (struct archive *a), (a)) \
  F(la_int64_t, archive_filter_bytes, (struct archive *a, int filter), (a, filter)) \
  F(struct archive_entry *, archive_entry_new, (void), ()) \
  F(struct archive_entry *, archive_entry_clear, (struct archive_entry *e), (e)) \
  V(archive_entry_free, (struct archive_entry *e), (e)) \
  F(__LA_MODE_T, archive_entry_filetype, (struct archive_entry *e), (e)) \
  F(__LA_MODE_T, archive_entry_perm, (struct archive_entry *e), (e)) \
  F(const char *, archive_entry_pathname, (struct archive_entry *e), (e)) \
  F(const char *, archive_entry_hardlink, (struct archive_entry *e), (e)) \
  F(const char *, archive_entry_symlink, (struct archive_entry *e), (e)) \
  F(time_t, archive_entry_mtime, (struct archive_entry *e), (e)) \
  F(long, archive_entry_mtime_nsec, (struct archive_entry *e), (e)) \
  F(int, archive_entry_mtime_is_set, (struct archive_entry *e), (e)) \
  F(la_int64_t, archive_entry_size, (struct archive_entry *e), (e)) \
  F(int, archive_entry_size_is_set, (struct archive_entry *e), (e)) \
  V(archive_entry_set_filetype, (struct archive_entry *e, unsigned int type), (e, type)) \
  V(archive_entry_set_perm, (struct archive_entry *e, __LA_MODE_T perm), (e, perm)) \
  V(archive_entry_set_uid, (struct archive_entry *e, la_int64_t uid), (e, uid)) \
  V(archive_entry_set_gid, (struct archive_entry *e, la_int64_t gid), (e, gid)) \
  V(archive_entry_set_mtime, (struct archive_entry *e, time_t seconds, long nanoseconds), (e, seconds, nanoseconds)) \
  V(archive_entry_set_size, (struct archive_entry *e, la_int64_t size), (e, size)) \
  V(archive_entry_sparse_add_entry, (struct archive_entry *e, la_int64_t offset, la_int64_t length), \
    (e, offset, length)) \
  V(archive_entry_copy_pathname, (struct archive_entry *e, const char *path), (e, path)) \
  V(archive_entry_copy_symlink, (struct archive_entry *e, const char *path), (e, path))

#endif
