#!/usr/bin/env bash
# Real file systems for the file-system tests (issue 24), each mounted in a folder of $FILESYSTEMS_DIR
# (default $TMPDIR/docpkg-filesystems). Needs root (CI runs as root): loop devices, FUSE and mounts.
#
#   Scripts/filesystems.sh start   installs what is missing from Debian, makes and mounts every file system that
#                                  can be had here, prints one `export DOCPKG_FS_<NAME>=<mount point>` line each
#   Scripts/filesystems.sh install only installs what is missing (.ci/run does it early, in the background)
#   Scripts/filesystems.sh env     prints those lines for the mounted ones (for `eval`)
#   Scripts/filesystems.sh stop    unmounts everything, stops sshd, removes the folder
#
# The file systems, and what each lacks that ext4 has:
#   EXFAT    exFAT through exfat-fuse (loop image): no hard links, symbolic links, modes, RENAME_EXCHANGE
#   FAT      FAT32 through fusefat (the kernel here has no vfat): as exFAT, and 8.3-era name rules
#   SSHFS    sshfs to a local sshd on a private port with a generated key: a network file system, no
#            RENAME_EXCHANGE, no inotify for changes made on the server side, no flock shared with the server;
#            mounted with dir_cache=no, so that the client sees the server's changes within a second
#   OVERLAY  overlayfs whose lower layer holds a package (as a container image would): renames of
#            lower-layer directories, copy-up on write
#   BTRFS    btrfs (loop image): reflinks
#   XFS      xfs (loop image): reflinks
# Each also gets DOCPKG_FS_<NAME>_SOURCE where the test needs the other side (SSHFS: the served folder;
# OVERLAY: the lower layer).
set -euo pipefail

DIR="${FILESYSTEMS_DIR:-${TMPDIR:-/tmp}/docpkg-filesystems}"
SSH_PORT="${FILESYSTEMS_SSH_PORT:-22722}"
IMAGE_MB=320  # xfs wants 300 MB at least

install_tools() {
  local need=()
  command -v mount.exfat-fuse >/dev/null || need+=(exfat-fuse)
  command -v mkfs.exfat >/dev/null || need+=(exfatprogs)
  command -v fusefat >/dev/null || need+=(fusefat)
  command -v mkfs.vfat >/dev/null || need+=(dosfstools)
  command -v sshfs >/dev/null || need+=(sshfs)
  [ -x /usr/sbin/sshd ] || need+=(openssh-server)
  command -v mkfs.btrfs >/dev/null || need+=(btrfs-progs)
  command -v mkfs.xfs >/dev/null || need+=(xfsprogs)
  if [ ${#need[@]} -eq 0 ]; then return; fi
  echo "filesystems: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

image() {  # image NAME: a sparse image file
  truncate -s "${IMAGE_MB}M" "$DIR/$1.img"
  echo "$DIR/$1.img"
}

mount_exfat() {
  local img device; img="$(image exfat)"
  mkfs.exfat "$img" >/dev/null
  # exfat-fuse wants a block device: the image on a loop device, detached again by `stop`.
  device="$(losetup --find --show "$img")"
  echo "$device" >"$DIR/exfat.loop"
  mount.exfat-fuse -o rw "$device" "$DIR/exfat" >/dev/null 2>&1
}

mount_fat() {
  local img; img="$(image fat)"
  mkfs.vfat -F 32 "$img" >/dev/null
  fusefat -o rw+ "$img" "$DIR/fat" >/dev/null 2>&1
}

mount_btrfs() {
  local img; img="$(image btrfs)"
  mkfs.btrfs -q "$img" >/dev/null
  mount -o loop "$img" "$DIR/btrfs"
}

mount_xfs() {
  local img; img="$(image xfs)"
  mkfs.xfs -q "$img" >/dev/null
  mount -o loop "$img" "$DIR/xfs"
}

mount_overlay() {
  mkdir -p "$DIR/overlay-lower" "$DIR/overlay-upper" "$DIR/overlay-work"
  mount -t overlay overlay -o "lowerdir=$DIR/overlay-lower,upperdir=$DIR/overlay-upper,workdir=$DIR/overlay-work" \
    "$DIR/overlay"
}

mount_sshfs() {
  mkdir -p "$DIR/ssh" "$DIR/sshfs-served"
  ssh-keygen -q -t ed25519 -N "" -f "$DIR/ssh/host_key"
  ssh-keygen -q -t ed25519 -N "" -f "$DIR/ssh/client_key"
  cp "$DIR/ssh/client_key.pub" "$DIR/ssh/authorized_keys"
  chmod 700 "$DIR/ssh"
  cat >"$DIR/ssh/sshd_config" <<EOF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $DIR/ssh/host_key
AuthorizedKeysFile $DIR/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
PidFile $DIR/ssh/sshd.pid
Subsystem sftp internal-sftp
EOF
  mkdir -p /run/sshd
  /usr/sbin/sshd -f "$DIR/ssh/sshd_config"
  for _ in $(seq 50); do
    # dir_cache=no: sshfs would otherwise show the listings and attributes it read for 20 s, hiding changes made
    # on the server side that long (a polling monitor's tests expect them within its interval).
    sshfs -p "$SSH_PORT" -o "IdentityFile=$DIR/ssh/client_key,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null" \
      -o "LogLevel=ERROR,reconnect,dir_cache=no" "root@127.0.0.1:$DIR/sshfs-served" "$DIR/sshfs" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

print_env() {
  local name
  for name in exfat fat sshfs overlay btrfs xfs; do
    if mountpoint -q "$DIR/$name" 2>/dev/null; then
      echo "export DOCPKG_FS_${name^^}=$DIR/$name"
    fi
  done
  if mountpoint -q "$DIR/sshfs" 2>/dev/null; then echo "export DOCPKG_FS_SSHFS_SOURCE=$DIR/sshfs-served"; fi
  if mountpoint -q "$DIR/overlay" 2>/dev/null; then echo "export DOCPKG_FS_OVERLAY_SOURCE=$DIR/overlay-lower"; fi
}

start() {
  install_tools
  stop
  mkdir -p "$DIR"/{exfat,fat,sshfs,overlay,btrfs,xfs}
  local name
  for name in exfat fat sshfs overlay btrfs xfs; do
    if ! "mount_$name"; then echo "filesystems: $name could not be mounted; its tests are skipped" >&2; fi
  done
  print_env
}

stop() {
  [ -d "$DIR" ] || return 0
  local name
  for name in exfat fat sshfs overlay btrfs xfs; do
    if mountpoint -q "$DIR/$name" 2>/dev/null; then
      umount "$DIR/$name" 2>/dev/null || fusermount -u "$DIR/$name" 2>/dev/null || umount -l "$DIR/$name" || true
    fi
  done
  if [ -f "$DIR/exfat.loop" ]; then losetup -d "$(cat "$DIR/exfat.loop")" 2>/dev/null || true; fi
  if [ -f "$DIR/ssh/sshd.pid" ]; then kill "$(cat "$DIR/ssh/sshd.pid")" 2>/dev/null || true; fi
  rm -rf "$DIR" 2>/dev/null || true  # a mount point still busy after a lazy unmount stays
}

case "${1:-}" in
  install) install_tools ;;
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 64
    ;;
esac
