/*
 * shellgate-sandbox-helper: the last step before a sandboxed command runs.
 *
 *   shellgate-sandbox-helper [--cgroup DIR] --net off|on [--special-files landlock|refuse] [--landlock [--rw DIR]...] [--special-dir DIR]... [--reap] [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]
 *   shellgate-sandbox-helper [--cgroup DIR] --net proxy --relay PORT=/SOCKET... [--special-files landlock|refuse] [--special-dir DIR]... [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]
 *   (either form with --command-fd N in place of -- CMD [ARG...]: see "deferred command" below)
 *   shellgate-sandbox-helper [--cgroup DIR] [--placeholder LOCK DIR]... --exec-only -- /ABS/PROG [ARG...]
 *   shellgate-sandbox-helper --release-placeholders --placeholder LOCK DIR...
 *   shellgate-sandbox-helper --hold-placeholders --placeholder LOCK DIR...
 *   shellgate-sandbox-helper --probe
 *   shellgate-sandbox-helper --splice
 *   shellgate-sandbox-helper --splice-body N
 *
 * It closes inherited descriptors above 2, optionally confines itself with Landlock (layer 3,
 * when user namespaces are unavailable), sets no_new_privs, installs a seccomp filter (layer 2)
 * and execs CMD. Under bubblewrap (layer 1) it runs inside the new namespaces. --nproc caps the
 * processes of CMD's user (RLIMIT_NPROC: per user namespace, so under bubblewrap it counts the
 * sandbox's processes only; the kernel does not enforce it for root). --cgroup first moves this
 * process into a prepared cgroup (pids.max), which binds root too; with --exec-only that is all it
 * does before exec'ing PROG (bubblewrap), so the whole sandbox starts inside the cgroup.
 * --placeholder (with --exec-only) makes DIR, an empty placeholder for a protected path, under a
 * shared lock on LOCK that bubblewrap keeps for the whole run; PROG then runs as this process's
 * child, and when it has ended this process removes the placeholders no run holds and ends the way
 * PROG did. --release-placeholders does only the removal, for a run that could not (see
 * "placeholders" below). --hold-placeholders makes them under the same shared locks for a whole
 * session, says "ready" on stdout, keeps them until its stdin ends, then removes those no run
 * holds. Variables that make
 * the dynamic loader run code (LD_PRELOAD...) reach CMD only through --setenv, applied at the very
 * end, so they never act on bubblewrap or on this helper. --foreground (only for a terminal the caller
 * allocated for this run) makes CMD a process group of its own and the terminal's foreground group,
 * so that Ctrl-C and Ctrl-Z reach CMD and its jobs, never bubblewrap or the reaper.
 *
 * Special files (FIFOs, unix sockets, device nodes) left in a directory the host reads later can
 * stall or mislead it: a FIFO named .gitignore hangs the next `git status`. --special-files landlock
 * (under bubblewrap) adds a Landlock domain that handles only the four MAKE_* rights for them (and
 * REFER, which Landlock otherwise denies outright, granted everywhere so renames keep working) and
 * grants them beneath each --special-dir alone (the sandbox's temporary directories); elsewhere
 * mknod, mkfifo and bind(2) of a path socket fail with EACCES. It needs Landlock ABI 2.
 * --special-files refuse is for kernels without it: seccomp cannot see paths, so mknod/mknodat of
 * every non-regular type is refused with EPERM everywhere; bind(2) of a path socket is not refused
 * there (only a granted network leaves AF_UNIX sockets creatable at all). With --landlock the
 * fallback layer's own ruleset does the same: --rw grants everything but those four rights, which
 * each --special-dir adds.
 *
 * --net proxy (under bubblewrap only: CMD has a network namespace of its own with nothing but lo)
 * listens on 127.0.0.1:PORT for each --relay before CMD starts, and leaves a relay process that
 * joins every connection to a fresh connect() of its unix SOCKET (the session proxy, bound into the
 * sandbox read-only). CMD may then create IP sockets only: AF_UNIX and every other family stay
 * refused as with --net off, since a read-only bind still lets connect() reach a host daemon.
 *
 * --splice joins fd 0 and fd 1 (two connected stream sockets: a tunnel the host-side network proxy
 * admitted) both ways, the same per-connection loop as the relay (a copy through a buffer per
 * direction, see RELAY_BUFFER), and exits 0 once both directions have ended (1 on a broken
 * connection). The host runs it, so it dies
 * with its parent and confines itself before touching a byte (see splice_main).
 *
 * --splice-body N moves exactly N bytes one way, from fd 1 (a destination) to fd 0 (a client), and
 * exits 0 without ending either side: the body of a plain-HTTP response whose length its head gave,
 * after which the proxy goes on using both connections (keep-alive). It reads nothing from fd 0 and
 * nothing past the N bytes; an end of fd 1 before them exits 3 (the body was cut short).
 *
 * --command-fd N (a pre-warmed sandbox) does every confinement step above as for -- CMD, then
 * waits for CMD on descriptor N, which no other process of the run keeps (see read_command).
 *
 * This is security code: every system call is checked and any failure aborts before CMD runs
 * (exit 125). 127 means CMD was not found, 126 that it could not be executed, 120 that
 * --command-fd ended before any byte (the caller discarded the sandbox; nothing ran).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SETUP 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127
#define EXIT_NO_COMMAND 120
#define MAX_RW 256
#define MAX_ENV 256
#define MAX_RELAYS 4
#define MAX_KEEP_FDS 64

/* What CMD's network is: none, the host's, or loopback only with relays to the session proxy. */
enum net_mode { NET_OFF = 0, NET_ON = 1, NET_PROXY = 2 };

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the seccomp filter reads the low word of syscall arguments; big-endian is not supported"
#endif

#if defined(__x86_64__)
#define SG_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SG_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "unsupported architecture (x86_64 and aarch64 only)"
#endif

/* Syscalls newer than some libc headers; these numbers are shared by x86_64 and aarch64. */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#define __NR_fspick 433
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#define SG_NR_landlock_create_ruleset 444
#define SG_NR_landlock_add_rule 445
#define SG_NR_landlock_restrict_self 446

/* Landlock UAPI, defined here because distribution headers lag the kernel (Debian 12: ABI 2). */
#define SG_LL_CREATE_RULESET_VERSION (1U << 0)
#define SG_LL_RULE_PATH_BENEATH 1
#define SG_LL_FS_EXECUTE (1ULL << 0)
#define SG_LL_FS_WRITE_FILE (1ULL << 1)
#define SG_LL_FS_READ_FILE (1ULL << 2)
#define SG_LL_FS_READ_DIR (1ULL << 3)
#define SG_LL_FS_REMOVE_DIR (1ULL << 4)
#define SG_LL_FS_REMOVE_FILE (1ULL << 5)
#define SG_LL_FS_MAKE_CHAR (1ULL << 6)
#define SG_LL_FS_MAKE_DIR (1ULL << 7)
#define SG_LL_FS_MAKE_REG (1ULL << 8)
#define SG_LL_FS_MAKE_SOCK (1ULL << 9)
#define SG_LL_FS_MAKE_FIFO (1ULL << 10)
#define SG_LL_FS_MAKE_BLOCK (1ULL << 11)
#define SG_LL_FS_MAKE_SYM (1ULL << 12)
#define SG_LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define SG_LL_FS_MAKE_SPECIAL (SG_LL_FS_MAKE_CHAR | SG_LL_FS_MAKE_SOCK | SG_LL_FS_MAKE_FIFO | SG_LL_FS_MAKE_BLOCK)
#define SG_LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define SG_LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define SG_LL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SG_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SG_LL_SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */

struct sg_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct sg_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

/* O_TMPFILE without its O_DIRECTORY part (the same value on x86_64 and aarch64). */
#define SG_O_TMPFILE_BIT 020000000U

/* Where CMD may create FIFOs, sockets and device nodes: anywhere (no flag), per Landlock, nowhere. */
enum special_mode { SPECIAL_ANYWHERE = 0, SPECIAL_LANDLOCK = 1, SPECIAL_REFUSE = 2 };

/* Namespace-creating clone flags (CLONE_NEWTIME, 0x80, is only meaningful for unshare). */
#define SG_CLONE_NS_FLAGS 0x7E020000U
#define SG_UNSHARE_NS_FLAGS (SG_CLONE_NS_FLAGS | 0x80U)

static const char *prog = "shellgate-sandbox-helper";

static void die(const char *what) {
  fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
  _exit(EXIT_SETUP);
}

static void die_msg(const char *msg) {
  fprintf(stderr, "%s: %s\n", prog, msg);
  _exit(EXIT_SETUP);
}

/* ---------- seccomp filter construction ---------- */

#define MAX_INSNS 512
struct filter {
  struct sock_filter insns[MAX_INSNS];
  unsigned short len;
};

static void emit(struct filter *f, unsigned short code, unsigned char jt, unsigned char jf, uint32_t k) {
  if (f->len >= MAX_INSNS) die_msg("seccomp filter too long");
  f->insns[f->len++] = (struct sock_filter)BPF_JUMP(code, k, jt, jf);
}

#define ARG_LO(i) ((uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i)))
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static void load_nr(struct filter *f) { emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, nr)); }

/* nr == sys → return ret */
static void deny_syscall(struct filter *f, uint32_t sys, uint32_t ret) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, sys);
  emit(f, BPF_RET | BPF_K, 0, 0, ret);
}

/* nr == sys && (arg & mask) != 0 → EPERM */
static void deny_flags(struct filter *f, uint32_t sys, int arg, uint32_t mask) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, sys);
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(arg));
  emit(f, BPF_JMP | BPF_JSET | BPF_K, 0, 1, mask);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
}

/* nr == sys && (flags_arg < 0 || (arg[flags_arg] & flags)) && (arg[mode_arg] & S_ISUID|S_ISGID) → EPERM */
static void deny_setid_mode(struct filter *f, uint32_t sys, int flags_arg, uint32_t flags, int mode_arg) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, flags_arg < 0 ? 3 : 5, sys);
  if (flags_arg >= 0) {
    emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(flags_arg));
    emit(f, BPF_JMP | BPF_JSET | BPF_K, 0, 3, flags);
  }
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(mode_arg));
  emit(f, BPF_JMP | BPF_JSET | BPF_K, 0, 1, S_ISUID | S_ISGID);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
}

/* nr == sys && arg == value → EPERM */
static void deny_arg_eq(struct filter *f, uint32_t sys, int arg, uint32_t value) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, sys);
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(arg));
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, value);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
}

/* nr == sys && (arg & S_IFMT) is a FIFO, socket or device → EPERM (mknod of a regular file stays) */
static void deny_special_nodes(struct filter *f, uint32_t sys, int mode_arg) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 7, sys);
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(mode_arg));
  emit(f, BPF_ALU | BPF_AND | BPF_K, 0, 0, S_IFMT);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 3, 0, S_IFIFO);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, S_IFSOCK);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, S_IFCHR);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, S_IFBLK);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
}

/* socketpair stays for in-process IPC, stream/seqpacket only: a datagram socket could sendto() a host path */
static void deny_socketpair_except_unix_stream(struct filter *f) {
  load_nr(f);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 7, __NR_socketpair);
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(0));
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AF_UNIX);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(1));
  emit(f, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xf);
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SOCK_DGRAM);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
}

static void build_filter(struct filter *f, enum net_mode net, int refuse_special) {
  static const uint32_t always_denied[] = {
    /* reading or steering other processes */
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_getfd, __NR_process_madvise,
    /* io_uring can open sockets and files outside these rules (IORING_OP_SOCKET, ...) */
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
    /* mount topology: nothing inside may remount, even in a nested namespace */
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_open_tree, __NR_move_mount, __NR_fsopen,
    __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_mount_setattr, __NR_setns,
    /* kernel-global state shared with the host */
    __NR_keyctl, __NR_add_key, __NR_request_key, __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,
    __NR_open_by_handle_at, __NR_kexec_load, __NR_kexec_file_load, __NR_init_module, __NR_finit_module,
    __NR_delete_module, __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct, __NR_syslog,
#ifdef __NR_iopl
    __NR_iopl,
#endif
#ifdef __NR_ioperm
    __NR_ioperm,
#endif
  };

  f->len = 0;
  emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
  emit(f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SG_AUDIT_ARCH);
  emit(f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
#if defined(__x86_64__)
  /* x32 syscalls share the arch value; refuse them all. */
  load_nr(f);
  emit(f, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000U);
  emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(ENOSYS));
#endif
  for (size_t i = 0; i < sizeof always_denied / sizeof always_denied[0]; i++) {
    deny_syscall(f, always_denied[i], RET_ERRNO(EPERM));
  }
  /* clone3 passes flags in memory the filter cannot read; ENOSYS makes libc fall back to clone. */
  deny_syscall(f, __NR_clone3, RET_ERRNO(ENOSYS));
  deny_flags(f, __NR_clone, 0, SG_CLONE_NS_FLAGS);
  deny_flags(f, __NR_unshare, 0, SG_UNSHARE_NS_FLAGS);
  /* terminal input injection */
  deny_arg_eq(f, __NR_ioctl, 1, TIOCSTI);
  deny_arg_eq(f, __NR_ioctl, 1, TIOCLINUX);

  /*
   * No set-user-ID or set-group-ID files: a file made here stays on the host, where a setuid copy
   * of a shell owned by root is a root shell for anyone. Both setting the bits on an existing file
   * and creating a file with them (the kernel keeps S_ISUID/S_ISGID from open/creat/mknod's mode)
   * are refused. openat2 passes its mode inside a struct the filter cannot read: ENOSYS, and
   * callers fall back to openat.
   */
#ifdef __NR_chmod
  deny_setid_mode(f, __NR_chmod, -1, 0, 1);
#endif
  deny_setid_mode(f, __NR_fchmod, -1, 0, 1);
  deny_setid_mode(f, __NR_fchmodat, -1, 0, 2);
  deny_setid_mode(f, __NR_fchmodat2, -1, 0, 2);
#ifdef __NR_open
  deny_setid_mode(f, __NR_open, 1, O_CREAT | SG_O_TMPFILE_BIT, 2);
#endif
#ifdef __NR_creat
  deny_setid_mode(f, __NR_creat, -1, 0, 1);
#endif
  deny_setid_mode(f, __NR_openat, 2, O_CREAT | SG_O_TMPFILE_BIT, 3);
#ifdef __NR_mknod
  deny_setid_mode(f, __NR_mknod, -1, 0, 1);
#endif
  deny_setid_mode(f, __NR_mknodat, -1, 0, 2);
  deny_syscall(f, __NR_openat2, RET_ERRNO(ENOSYS));
  if (refuse_special) {
#ifdef __NR_mknod
    deny_special_nodes(f, __NR_mknod, 1);
#endif
    deny_special_nodes(f, __NR_mknodat, 2);
  }

  if (net == NET_OFF) {
    /*
     * No new sockets of any family: not only IP, but AF_UNIX too, because a read-only bind
     * still lets connect() reach a host daemon's socket (docker.sock, the D-Bus bus...).
     */
    deny_syscall(f, __NR_socket, RET_ERRNO(EPERM));
    deny_syscall(f, __NR_connect, RET_ERRNO(EPERM));
    deny_syscall(f, __NR_bind, RET_ERRNO(EPERM));
    deny_syscall(f, __NR_listen, RET_ERRNO(EPERM));
    deny_syscall(f, __NR_accept, RET_ERRNO(EPERM));
    deny_syscall(f, __NR_accept4, RET_ERRNO(EPERM));
    deny_socketpair_except_unix_stream(f);
  } else if (net == NET_PROXY) {
    /*
     * IP sockets only. The namespace has nothing but lo, where the relays listen; everything a
     * unix, netlink, packet or VM socket could reach (host daemons' socket files above all) stays
     * out of reach as with the network off.
     */
    load_nr(f);
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 4, __NR_socket);
    emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(0));
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 2, 0, AF_INET);
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AF_INET6);
    emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
    deny_socketpair_except_unix_stream(f);
  } else {
    /* network granted: still no VM sockets (hypervisor bridges) */
    deny_arg_eq(f, __NR_socket, 0, AF_VSOCK);
  }
  emit(f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
}

static void install_seccomp(enum net_mode net, int refuse_special) {
  static struct filter f;
  build_filter(&f, net, refuse_special);
  struct sock_fprog fprog = {.len = f.len, .filter = f.insns};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) die("prctl(PR_SET_SECCOMP)");
}

/* ---------- Landlock (layer 3) ---------- */

static int landlock_abi(void) {
  long abi = syscall(SG_NR_landlock_create_ruleset, NULL, 0, SG_LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

static uint64_t fs_rights_for_abi(int abi) {
  uint64_t r = SG_LL_FS_EXECUTE | SG_LL_FS_WRITE_FILE | SG_LL_FS_READ_FILE | SG_LL_FS_READ_DIR |
               SG_LL_FS_REMOVE_DIR | SG_LL_FS_REMOVE_FILE | SG_LL_FS_MAKE_CHAR | SG_LL_FS_MAKE_DIR |
               SG_LL_FS_MAKE_REG | SG_LL_FS_MAKE_SOCK | SG_LL_FS_MAKE_FIFO | SG_LL_FS_MAKE_BLOCK |
               SG_LL_FS_MAKE_SYM;
  if (abi >= 2) r |= SG_LL_FS_REFER;
  if (abi >= 3) r |= SG_LL_FS_TRUNCATE;
  /* IOCTL_DEV (ABI 5) is deliberately not handled: terminals need their ioctls. */
  return r;
}

static void add_path_rule(int ruleset, const char *path, uint64_t access, int required) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (!required && (errno == ENOENT || errno == ENOTDIR)) return;
    fprintf(stderr, "%s: open %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) die("fstat");
  if (!S_ISDIR(st.st_mode)) {
    /* rules on files may only carry file rights */
    access &= SG_LL_FS_EXECUTE | SG_LL_FS_WRITE_FILE | SG_LL_FS_READ_FILE | SG_LL_FS_TRUNCATE;
  }
  if (access == 0) {
    /* only directory rights asked for a non-directory: nothing to grant (the kernel would say ENOMSG) */
    if (close(fd) != 0) die("close");
    return;
  }
  struct sg_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
  if (syscall(SG_NR_landlock_add_rule, ruleset, SG_LL_RULE_PATH_BENEATH, &attr, 0) != 0) {
    fprintf(stderr, "%s: landlock_add_rule %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (close(fd) != 0) die("close");
}

static void apply_landlock(char **rw, int nrw, char **special, int nspecial, int network_off) {
  int abi = landlock_abi();
  if (abi < 1) die_msg("Landlock is not available in this kernel");
  struct sg_ruleset_attr attr = {0};
  size_t size = offsetof(struct sg_ruleset_attr, handled_access_net);
  attr.handled_access_fs = fs_rights_for_abi(abi);
  if (abi >= 4) {
    size = offsetof(struct sg_ruleset_attr, scoped);
    /* TCP is also refused by seccomp; Landlock is the second lock on it. */
    if (network_off) attr.handled_access_net = SG_LL_NET_BIND_TCP | SG_LL_NET_CONNECT_TCP;
  }
  if (abi >= 6) {
    size = sizeof attr;
    attr.scoped = SG_LL_SCOPE_SIGNAL | (network_off ? SG_LL_SCOPE_ABSTRACT_UNIX : 0);
  }
  int ruleset = (int)syscall(SG_NR_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die("landlock_create_ruleset");
  uint64_t all = attr.handled_access_fs;
  uint64_t read = SG_LL_FS_EXECUTE | SG_LL_FS_READ_FILE | SG_LL_FS_READ_DIR;
  add_path_rule(ruleset, "/", read, 1);
  static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"};
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
    add_path_rule(ruleset, devices[i], read | SG_LL_FS_WRITE_FILE | (abi >= 3 ? SG_LL_FS_TRUNCATE : 0), 0);
  }
  for (int i = 0; i < nrw; i++) add_path_rule(ruleset, rw[i], all & ~SG_LL_FS_MAKE_SPECIAL, 1);
  for (int i = 0; i < nspecial; i++) add_path_rule(ruleset, special[i], SG_LL_FS_MAKE_SPECIAL, 0);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  if (syscall(SG_NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
  if (close(ruleset) != 0) die("close");
}

/*
 * Under bubblewrap: a domain of its own that handles only the special-file rights, granted beneath
 * the given directories (missing ones are skipped). Landlock denies every reparenting rename or link
 * once a domain handles any filesystem right, unless REFER is handled and granted: it is, beneath
 * "/", so `mv a/x b/x` keeps working (ABI 1 cannot do this, hence ABI 2). A directory moved from a
 * place without the rights to one with them is still refused (EXDEV) as widening, which only
 * happens within one mount when a special directory lies inside a writable root; the caller keeps
 * such directories out.
 */
static void restrict_special_files(char **special, int nspecial) {
  int abi = landlock_abi();
  if (abi < 2) die_msg("--special-files landlock needs Landlock ABI 2 or later");
  struct sg_ruleset_attr attr = {0};
  attr.handled_access_fs = SG_LL_FS_MAKE_SPECIAL | SG_LL_FS_REFER;
  int ruleset = (int)syscall(SG_NR_landlock_create_ruleset, &attr, offsetof(struct sg_ruleset_attr, handled_access_net), 0);
  if (ruleset < 0) die("landlock_create_ruleset");
  add_path_rule(ruleset, "/", SG_LL_FS_REFER, 1);
  for (int i = 0; i < nspecial; i++) add_path_rule(ruleset, special[i], SG_LL_FS_MAKE_SPECIAL | SG_LL_FS_REFER, 0);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  if (syscall(SG_NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
  if (close(ruleset) != 0) die("close");
}

/* ---------- descriptors, reaping, exec ---------- */

/* --command-fd: where CMD's argv will come from, or -1 (CMD is on the command line). */
static int command_fd = -1;

static void close_span(unsigned lo, unsigned hi) {
  if (lo > hi) return;
  if (syscall(__NR_close_range, lo, hi, 0U) == 0) return;
  if (errno != ENOSYS) die("close_range");
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 1 << 20) max = 1 << 20;
  for (long fd = lo; fd < max && fd <= (long)hi; fd++) close((int)fd);
}

/* Close every descriptor above 2 but the n in `keep`. */
static void close_fds_except(const int *keep, int n) {
  int sorted[MAX_KEEP_FDS];
  if (n > MAX_KEEP_FDS) die_msg("too many descriptors to keep");
  for (int k = 0; k < n; k++) {
    int j = k;
    for (; j > 0 && sorted[j - 1] > keep[k]; j--) sorted[j] = sorted[j - 1];
    sorted[j] = keep[k];
  }
  unsigned lo = 3;
  for (int k = 0; k < n; k++) {
    if (sorted[k] < (int)lo) continue;
    close_span(lo, (unsigned)sorted[k] - 1);
    lo = (unsigned)sorted[k] + 1;
  }
  close_span(lo, ~0U);
}

/* Everything above 2 goes, but the descriptor CMD is still to be read from. */
static void close_inherited_fds(void) {
  if (command_fd >= 0) close_fds_except(&command_fd, 1);
  else close_fds_except(NULL, 0);
}

static volatile sig_atomic_t main_child = 0;

static void forward_signal(int sig) {
  if (main_child > 0) kill(main_child, sig);
}

/* Our caller died: end the command at once; the wait loop then kills whatever it left behind. */
static void on_parent_death(int sig) {
  (void)sig;
  if (main_child > 0) kill(main_child, SIGKILL);
}

/* Our children according to /proc, by scanning every process's parent pid. */
static int kill_children_by_scan(void) {
  DIR *d = opendir("/proc");
  if (!d) die("opendir /proc");
  pid_t me = getpid();
  int killed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    char *paren = strrchr(buf, ')');
    long ppid;
    char state;
    if (!paren || sscanf(paren + 1, " %c %ld", &state, &ppid) != 2) continue;
    if (ppid == me && kill((pid_t)pid, SIGKILL) == 0) killed++;
  }
  closedir(d);
  return killed;
}

static void kill_own_children(void) {
  /* Orphans reparent to us (we are a subreaper); kill whatever is our child until none is left. */
  for (int round = 0; round < 100000; round++) {
    int killed = kill_children_by_scan();
    int st;
    pid_t r = waitpid(-1, &st, killed ? 0 : WNOHANG);
    if (r < 0 && errno == ECHILD) return;
    if (r < 0 && errno != EINTR) die("waitpid");
  }
  die_msg("could not reap the command's background processes");
}

static void run_reaped(void) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("prctl(PR_SET_CHILD_SUBREAPER)");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  if (sigemptyset(&sa.sa_mask) != 0) die("sigemptyset");
  /* A catchable death signal (not SIGKILL): the reaper must outlive its caller long enough to
     kill the command's whole tree, or background processes would be orphaned to the host. */
  int pdeath = SIGRTMIN + 3;
  sa.sa_handler = on_parent_death;
  if (sigaction(pdeath, &sa, NULL) != 0) die("sigaction");
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, pdeath, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)");
  if (getppid() != parent) die_msg("parent exited during setup");
  sa.sa_handler = forward_signal;
  int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
    if (sigaction(forwarded[i], &sa, NULL) != 0) die("sigaction");
  }
  pid_t reaper = getpid();
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    sa.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
      if (sigaction(forwarded[i], &sa, NULL) != 0) die("sigaction");
    }
    if (sigaction(pdeath, &sa, NULL) != 0) die("sigaction");
    /* if the reaper is killed, its command dies with it */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)");
    if (getppid() != reaper) die_msg("the reaper exited during setup");
    return;
  }
  main_child = child;
  /* The child reads CMD; the reaper only waits. */
  if (command_fd >= 0 && close(command_fd) != 0) die("close --command-fd");
  int status = 0;
  for (;;) {
    int st;
    pid_t r = waitpid(-1, &st, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      die("waitpid");
    }
    if (r == child) {
      status = st;
      break;
    }
  }
  main_child = 0;
  kill_own_children();
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);
}

static void exec_command(char **argv) {
  execvp(argv[0], argv);
  int err = errno;
  /* Worded like a shell, without naming the sandbox: a missing program is not a sandbox denial,
     and denial heuristics look for the word. */
  if (err == ENOENT || err == ENOTDIR) {
    fprintf(stderr, "%s: command not found\n", argv[0]);
    _exit(EXIT_NOTFOUND);
  }
  fprintf(stderr, "%s: cannot execute: %s\n", argv[0], strerror(err));
  _exit(EXIT_NOEXEC);
}

/* ---------- terminal ---------- */

/*
 * Make this process a group of its own and the foreground group of the terminal on stdin. The
 * terminal's own signals (Ctrl-C, Ctrl-Z) go to the foreground group: without this they would reach
 * bubblewrap (or the reaper) too, which die from them and end the whole session. Nothing to do
 * when stdin is not a terminal or not our controlling terminal (the caller said it gave us one, but
 * spawned differently): the command then simply runs without job control.
 */
static void take_terminal_foreground(void) {
  if (!isatty(0)) return;
  if (setpgid(0, 0) != 0) die("setpgid");
  /* A background group calling tcsetpgrp gets SIGTTOU: block it for the call. */
  sigset_t ttou, old;
  if (sigemptyset(&ttou) != 0 || sigaddset(&ttou, SIGTTOU) != 0) die("sigset");
  if (sigprocmask(SIG_BLOCK, &ttou, &old) != 0) die("sigprocmask");
  if (tcsetpgrp(0, getpgrp()) != 0 && errno != ENOTTY) die("tcsetpgrp");
  if (sigprocmask(SIG_SETMASK, &old, NULL) != 0) die("sigprocmask");
}

/* ---------- process limits ---------- */

/*
 * Move this process into the cgroup DIR (prepared by the caller, with pids.max set). On cgroup v1
 * "0" is written to DIR/tasks: that moves only the calling thread, which is all of this
 * single-threaded process, and the kernel then skips the system-wide lock that a cgroup.procs
 * write takes to keep whole thread groups still. Taking that lock waits for an RCU grace period:
 * 5-15 ms of every run on the 2-CPU bench machine (Linux 6.18), against 0.03 ms for the thread
 * move. Kernels without that shortcut just take the lock, as a cgroup.procs write would. cgroup v2
 * has no `tasks` file; there the pid is written to cgroup.procs.
 */
static int write_cgroup_file(const char *dir, const char *name, const char *text, int missing_ok) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) die_msg("--cgroup path too long");
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 && missing_ok && errno == ENOENT) return 0;
  if (fd < 0) {
    fprintf(stderr, "%s: open %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  size_t n = strlen(text);
  if (write(fd, text, n) != (ssize_t)n) {
    fprintf(stderr, "%s: joining cgroup %s: %s\n", prog, dir, strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (close(fd) != 0) die("close");
  return 1;
}

static void join_cgroup(const char *dir) {
  if (write_cgroup_file(dir, "tasks", "0\n", 1)) return;
  char pid[32];
  (void)snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  (void)write_cgroup_file(dir, "cgroup.procs", pid, 0);
}

static void limit_processes(long n) {
  struct rlimit rl = {.rlim_cur = (rlim_t)n, .rlim_max = (rlim_t)n};
  if (setrlimit(RLIMIT_NPROC, &rl) != 0) die("setrlimit(RLIMIT_NPROC)");
}

/* ---------- placeholders (--placeholder LOCK DIR) ---------- */

/*
 * A placeholder is an empty directory made on the host where a protected path (.codex, .git...)
 * does not exist yet, so that bubblewrap has something to mount read-only over it. The host may
 * rmdir a directory that is a mount point in another mount namespace, and the kernel then silently
 * detaches that mount there: a cleanup that removed a placeholder some other sandbox has mounted
 * would hand that sandbox the protected name, writable. Two locks keep every run's placeholder:
 *  - once mounted, bubblewrap's own `--lock-file` read lock (fcntl) on the directory, held by the
 *    sandbox's init for as long as the sandbox lives;
 *  - before that, from before the run makes the directory until bubblewrap has taken that lock, a
 *    shared flock on the placeholder's lock file: the descriptor survives the exec into bubblewrap
 *    and stays with the process that sets up the mounts and becomes CMD, where the helper inside
 *    closes it before CMD starts.
 * A cleanup takes the exclusive flock without waiting (a run between the two points: leave it),
 * then removes the directory only if no fcntl lock is held on it (a sandbox has it mounted). While
 * it holds the flock no run can start mounting, so the check and the rmdir cannot be overtaken;
 * whoever finishes last removes the placeholder. The lock files live where no sandbox can see them
 * (the caller masks their directory), so a command cannot hold one to stall or keep other runs.
 */
#define MAX_PLACEHOLDERS 64
/* The mark of a directory this mechanism made: no one gives an empty configuration directory the sticky bit. */
#define PLACEHOLDER_MODE 01755
/* A cleanup holds the exclusive lock for one rmdir; anything longer is a stuck or hostile holder. */
#define LOCK_WAIT_SECONDS 10

struct placeholder {
  const char *lock;
  const char *dir;
};

static void on_alarm(int sig) {
  (void)sig;
}

static int open_lock(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "%s: open lock file %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) die("fstat lock file");
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    fprintf(stderr, "%s: lock file %s is not a regular file of this user\n", prog, path);
    _exit(EXIT_SETUP);
  }
  return fd;
}

/* Wait (bounded) for the shared lock: only a cleanup's rmdir should ever stand in the way. */
static void lock_shared(int fd, const char *path) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART: the alarm makes flock fail with EINTR */
  if (sigemptyset(&sa.sa_mask) != 0 || sigaction(SIGALRM, &sa, &old) != 0) die("sigaction(SIGALRM)");
  alarm(LOCK_WAIT_SECONDS);
  int r = flock(fd, LOCK_SH);
  int saved = errno;
  alarm(0);
  if (sigaction(SIGALRM, &old, NULL) != 0) die("sigaction(SIGALRM)");
  if (r == 0) return;
  if (saved == EINTR) fprintf(stderr, "%s: the placeholder lock %s is still held by another process after %d s; refusing to run\n", prog, path, LOCK_WAIT_SECONDS);
  else fprintf(stderr, "%s: flock %s: %s\n", prog, path, strerror(saved));
  _exit(EXIT_SETUP);
}

static void make_placeholder(const char *dir) {
  if (mkdir(dir, 0700) != 0) {
    /* There already (the user's own, another run's, a leftover): bubblewrap mounts it as it is. */
    if (errno == EEXIST) return;
    fprintf(stderr, "%s: cannot create the placeholder directory %s that keeps a protected path from being created inside the sandbox: %s\n", prog, dir, strerror(errno));
    _exit(EXIT_SETUP);
  }
  /* Marked through a descriptor of the directory just made, never through a path that could have become a symlink. */
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) die("open placeholder");
  struct stat st;
  if (fstat(fd, &st) != 0) die("fstat placeholder");
  if (st.st_uid == geteuid() && fchmod(fd, PLACEHOLDER_MODE) != 0) die("fchmod placeholder");
  if (close(fd) != 0) die("close");
}

/* --exec-only: lock and make every placeholder, and keep the locks open across the exec into bubblewrap. */
static void hold_placeholders(const struct placeholder *ph, int n, int *fds) {
  for (int k = 0; k < n; k++) {
    int fd = open_lock(ph[k].lock);
    lock_shared(fd, ph[k].lock);
    make_placeholder(ph[k].dir);
    if (fcntl(fd, F_SETFD, 0) != 0) die("fcntl(F_SETFD)");
    fds[k] = fd;
  }
}

/* --release-placeholders: remove each marked, empty placeholder of this user that no run holds. */
static int release_placeholders(const struct placeholder *ph, int n) {
  for (int k = 0; k < n; k++) {
    int fd = open_lock(ph[k].lock);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) die("flock");
      if (close(fd) != 0) die("close");
      continue; /* a run holds it: the last one to finish removes it */
    }
    int d = open(ph[k].dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d >= 0) {
      struct stat st;
      if (fstat(d, &st) != 0) die("fstat placeholder");
      /* A sandbox that has it mounted holds bubblewrap's read lock on it. */
      struct flock probe;
      memset(&probe, 0, sizeof probe);
      probe.l_type = F_WRLCK;
      probe.l_whence = SEEK_SET;
      if (fcntl(d, F_GETLK, &probe) != 0) die("fcntl(F_GETLK)");
      /* Never recursive: a directory something was put into stays (ENOTEMPTY), as does a user's own. */
      if (probe.l_type == F_UNLCK && (st.st_mode & 07777) == PLACEHOLDER_MODE && st.st_uid == geteuid() && rmdir(ph[k].dir) != 0 && errno != ENOTEMPTY && errno != ENOENT) {
        fprintf(stderr, "%s: rmdir %s: %s\n", prog, ph[k].dir, strerror(errno));
      }
      if (close(d) != 0) die("close");
    }
    if (close(fd) != 0) die("close");
  }
  return 0;
}

/*
 * --hold-placeholders: a session's runs would each make and remove the same placeholders (a mkdir
 * and an rmdir on the user's file system per placeholder and run). This process takes the shared
 * locks a run takes before making them, so every run in between finds them there and no run's
 * cleanup can remove them; the locks of the runs and of their sandboxes work as before. It ends
 * when its stdin does (the session closed it, or the session's process died), then releases the
 * placeholders like a run's end does. The terminal's signals are for the session's foreground
 * job, not for this process: it ignores them and waits for its stdin.
 */
static int hold_for_session(const struct placeholder *ph, int n) {
  int fds[MAX_PLACEHOLDERS];
  (void)signal(SIGINT, SIG_IGN);
  (void)signal(SIGQUIT, SIG_IGN);
  (void)signal(SIGHUP, SIG_IGN);
  (void)signal(SIGPIPE, SIG_IGN);
  hold_placeholders(ph, n, fds);
  for (int k = 0; k < n; k++) {
    if (fcntl(fds[k], F_SETFD, FD_CLOEXEC) != 0) die("fcntl(F_SETFD)");
  }
  static const char ready[] = "ready\n";
  if (write(STDOUT_FILENO, ready, sizeof ready - 1) != (ssize_t)(sizeof ready - 1)) die("write");
  char buf[64];
  for (;;) {
    ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
    if (r == 0 || (r < 0 && errno != EINTR)) break;
  }
  for (int k = 0; k < n; k++) (void)close(fds[k]);
  return release_placeholders(ph, n);
}

/*
 * --exec-only with placeholders: PROG (bubblewrap) runs as a child instead of replacing this
 * process, which waits for it, releases the placeholders (the work of --release-placeholders, with
 * no second process for the caller to start) and ends as the child ended: the same exit code, or
 * killed by the same signal. Signals sent to this process (the caller's pid for the run) go on to
 * the child (forward_signal, as for --reap). It dies with its caller like bubblewrap did
 * (PR_SET_PDEATHSIG), and bubblewrap's --die-with-parent then takes the sandbox down with it.
 */
/* What this process passes on to bubblewrap; its child gets them back at their defaults. */
static const int run_forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGCONT};
#define RUN_FORWARDED (sizeof run_forwarded / sizeof run_forwarded[0])

static int forward_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward_signal;
  sa.sa_flags = SA_RESTART;
  if (sigemptyset(&sa.sa_mask) != 0) return -1;
  for (size_t k = 0; k < RUN_FORWARDED; k++) {
    if (sigaction(run_forwarded[k], &sa, NULL) != 0) return -1;
  }
  return 0;
}

_Noreturn static void run_then_release(char **cmd, const struct placeholder *ph, int n, const int *fds) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)");
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("prctl(PR_SET_CHILD_SUBREAPER)");
  /* Handlers first, then the child: a signal in between would otherwise end this process alone. */
  sigset_t all, old;
  if (sigfillset(&all) != 0 || sigprocmask(SIG_BLOCK, &all, &old) != 0) die("sigprocmask");
  if (forward_signals() != 0) die("sigaction");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    /* The child starts with the caller's dispositions and mask, as after a plain exec. */
    for (size_t k = 0; k < RUN_FORWARDED; k++) (void)signal(run_forwarded[k], SIG_DFL);
    if (sigprocmask(SIG_SETMASK, &old, NULL) != 0) die("sigprocmask");
    execv(cmd[0], cmd);
    fprintf(stderr, "%s: exec %s: %s\n", prog, cmd[0], strerror(errno));
    _exit(EXIT_SETUP);
  }
  main_child = child;
  if (sigprocmask(SIG_SETMASK, &old, NULL) != 0) die("sigprocmask");
  /* Only the locks are this process's: the rest (a pre-warmed run's command pipe) is bubblewrap's. */
  close_fds_except(fds, n);
  /*
   * bubblewrap's outer process exits as soon as it has the command's status, while the sandbox's
   * init may still be tearing its PID namespace down. As subreaper this process inherits that init
   * and waits for it too, so that when it ends nothing of the run is left: the caller's cleanup
   * then finds the cgroup empty instead of polling it.
   */
  int st = 0;
  for (;;) {
    int any = 0;
    pid_t w = waitpid(-1, &any, 0);
    if (w == child) {
      st = any;
      main_child = 0;
    }
    if (w >= 0 || errno == EINTR) continue;
    if (errno == ECHILD) break;
    die("waitpid");
  }
  /* Every other copy of the lock descriptors was in bubblewrap's processes, which are gone now. */
  for (int k = 0; k < n; k++) (void)close(fds[k]);
  (void)release_placeholders(ph, n);
  if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
  int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
  /* Killed by the same signal, without a core file of this process. */
  struct rlimit none = {0, 0};
  (void)setrlimit(RLIMIT_CORE, &none);
  (void)signal(sig, SIG_DFL);
  sigset_t only;
  if (sigemptyset(&only) == 0 && sigaddset(&only, sig) == 0) (void)sigprocmask(SIG_UNBLOCK, &only, NULL);
  (void)raise(sig);
  _exit(128 + sig);
}

/* ---------- proxy relay (--net proxy) ---------- */

/*
 * The relay joins connections to 127.0.0.1:PORT inside the sandbox's network namespace to the
 * session proxy's unix sockets. It is forked before CMD exists and confines itself before CMD
 * starts: not dumpable (CMD runs as the same uid, and would otherwise read or write its memory
 * through /proc/PID/mem), no terminal, no descriptors but its own sockets, and a seccomp allow-list
 * of the few calls the loop makes. CMD can still kill it (same uid, same PID namespace): that only
 * closes the ports, so CMD loses the proxy and gains nothing.
 */

struct relay {
  int port;
  const char *path;
  int fd;
};

enum { KIND_LISTENER = 1, KIND_CONN = 2 };

struct listener {
  int kind;
  int fd;
  struct sockaddr_un addr;
};

/* One relayed connection: side 0 is the command's TCP socket, side 1 the proxy's unix socket. */
struct conn {
  int kind;
  int fd[2];
  /* buf[d] holds what side d sent on its way to side 1-d: pending[d] bytes from off[d] on. */
  char *buf[2];
  size_t bufsize;
  size_t off[2];
  size_t pending[2];
  int eof[2];
  int dead;
  struct conn *next_dead;
};

/*
 * The bytes of a connection are copied through a buffer per direction, not spliced: on loopback
 * the receiver spends more CPU on the page references splice(2) hands on than on copied bytes,
 * more than the copy costs (a client reading a 100 MB body: about 75 against 50 ms). Measured on
 * the 2-CPU bench machine, 100 MB each: the relay went from 41-46 % of loopback TCP to 55-93 %
 * (bench/run.mjs); through the host proxy's splicer, interleaved A/B medians were 8-15 % faster for
 * a CONNECT tunnel and 25-28 % for a plain-HTTP body (a tunnel's best single round 9 % slower).
 * The relay holds many connections in one process: 256 KiB a direction each, allocated per
 * connection. A splicer holds one: 1 MiB (256 KiB gained the tunnel nothing); at most 64 run (the
 * proxy's MAX_SPLICERS), 128 MiB at worst.
 */
#define RELAY_BUFFER (256 * 1024)
#define SPLICER_BUFFER (1024 * 1024)
#define RELAY_EVENTS 256

static struct listener listeners[MAX_RELAYS];
static int nlisteners = 0;
static int relay_epoll = -1;
static int listeners_paused = 0;
static struct conn *dead_conns = NULL;

/* Bind and listen now, in the helper: the ports accept connections before CMD runs. */
static int listen_loopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket(AF_INET) for a relay");
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) die("setsockopt(SO_REUSEADDR)");
  struct sockaddr_in sin;
  memset(&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons((uint16_t)port);
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0) {
    fprintf(stderr, "%s: binding relay port 127.0.0.1:%d: %s\n", prog, port, strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (listen(fd, 4096) != 0) die("listen");
  return fd;
}

/* A refused connection is reset, not just closed: the client fails at once instead of reading an empty reply. */
static void reset_close(int fd) {
  struct linger lg = {.l_onoff = 1, .l_linger = 0};
  (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(fd);
}

static void set_listeners(int op) {
  for (int i = 0; i < nlisteners; i++) {
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &listeners[i]};
    if (epoll_ctl(relay_epoll, op, listeners[i].fd, &ev) != 0) _exit(1);
  }
}

static void close_conn(struct conn *c) {
  if (c->dead) return;
  c->dead = 1;
  for (int d = 0; d < 2; d++) {
    if (c->fd[d] >= 0) {
      if (d == 0 && (c->pending[0] || c->pending[1] || !c->eof[0] || !c->eof[1])) reset_close(c->fd[d]);
      else close(c->fd[d]);
    }
  }
  /* Freed after the current batch of events, which may still name it. */
  c->next_dead = dead_conns;
  dead_conns = c;
  if (listeners_paused) {
    listeners_paused = 0;
    set_listeners(EPOLL_CTL_ADD);
  }
}

/* Half-close passes through: a client that shut down its sending side still gets its answer. */
static int pass_end(struct conn *c, int d) {
  c->eof[d] = 1;
  return shutdown(c->fd[1 - d], SHUT_WR) != 0 && errno != ENOTCONN ? -1 : 0;
}

/* Writes some of what side d sent and is still in flight (pending[d]) to side 1-d. */
static ssize_t send_pending(struct conn *c, int d) {
  ssize_t n = write(c->fd[1 - d], c->buf[d] + c->off[d], c->pending[d]);
  if (n > 0) c->off[d] += (size_t)n;
  return n;
}

/* Reads more of what side d sends into its buffer, once nothing of it is pending. */
static ssize_t take_more(struct conn *c, int d) {
  c->off[d] = 0;
  return read(c->fd[d], c->buf[d], c->bufsize);
}

/* Move what side d sent to side 1-d until one of them would block; -1 when the connection is broken. */
static int pump(struct conn *c, int d) {
  for (;;) {
    while (c->pending[d] > 0) {
      ssize_t n = send_pending(c, d);
      if (n > 0) {
        c->pending[d] -= (size_t)n;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return 0;
      return -1;
    }
    if (c->eof[d]) return 0;
    ssize_t n = take_more(c, d);
    if (n > 0) {
      c->pending[d] += (size_t)n;
      continue;
    }
    if (n == 0) return pass_end(c, d);
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return 0;
    return -1;
  }
}


/*
 * One step of a connection, after an event on either side: both directions move as far as they
 * can. -1 when it is broken, 1 when both sides have ended and nothing is left in flight, else 0.
 * The relay and --splice share it, so the two paths cannot drift apart.
 */
static int conn_advance(struct conn *c) {
  if (pump(c, 0) < 0 || pump(c, 1) < 0) return -1;
  return c->eof[0] && c->eof[1] && !c->pending[0] && !c->pending[1];
}

static void open_conn(int client, const struct listener *l) {
  int upstream = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (upstream < 0) {
    reset_close(client);
    return;
  }
  /* Fail closed and fast: no proxy (gone, refusing, backlog full) means no connection. */
  if (connect(upstream, (const struct sockaddr *)&l->addr, sizeof l->addr) != 0) {
    close(upstream);
    reset_close(client);
    return;
  }
  struct conn *c = calloc(1, sizeof *c);
  if (!c) {
    close(upstream);
    reset_close(client);
    return;
  }
  c->kind = KIND_CONN;
  c->fd[0] = client;
  c->fd[1] = upstream;
  int one = 1;
  (void)setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->buf[0] = malloc(RELAY_BUFFER);
  c->buf[1] = malloc(RELAY_BUFFER);
  c->bufsize = RELAY_BUFFER;
  if (!c->buf[0] || !c->buf[1]) {
    close_conn(c);
    return;
  }
  for (int d = 0; d < 2; d++) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
    if (epoll_ctl(relay_epoll, EPOLL_CTL_ADD, c->fd[d], &ev) != 0) {
      close_conn(c);
      return;
    }
  }
}

static void accept_all(struct listener *l) {
  for (;;) {
    int client = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client >= 0) {
      open_conn(client, l);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      /* Out of descriptors: stop listening until a connection closes, rather than spin. */
      if (!listeners_paused) {
        listeners_paused = 1;
        set_listeners(EPOLL_CTL_DEL);
      }
    }
    return;
  }
}

static void relay_loop(void) {
  static struct epoll_event events[RELAY_EVENTS];
  for (;;) {
    int n = epoll_wait(relay_epoll, events, RELAY_EVENTS, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    for (int i = 0; i < n; i++) {
      int kind = *(int *)events[i].data.ptr;
      if (kind == KIND_LISTENER) {
        accept_all(events[i].data.ptr);
        continue;
      }
      struct conn *c = events[i].data.ptr;
      if (c->dead) continue;
      if (conn_advance(c) != 0) close_conn(c);
    }
    while (dead_conns) {
      struct conn *next = dead_conns->next_dead;
      free(dead_conns->buf[0]);
      free(dead_conns->buf[1]);
      free(dead_conns);
      dead_conns = next;
    }
  }
}

/*
 * An allow-list filter: the calls in `allowed`, plus socket(AF_UNIX, ...) when `unix_sockets`;
 * anything else (and any other architecture's calling convention) kills the process.
 */
static void allowlist_seccomp(const uint32_t *allowed, size_t n, int unix_sockets) {
  static struct filter f;
  f.len = 0;
  emit(&f, BPF_LD | BPF_W | BPF_ABS, 0, 0, offsetof(struct seccomp_data, arch));
  emit(&f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SG_AUDIT_ARCH);
  emit(&f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
  load_nr(&f);
  for (size_t i = 0; i < n; i++) {
    emit(&f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, allowed[i]);
    emit(&f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
  }
  if (unix_sockets) {
    emit(&f, BPF_JMP | BPF_JEQ | BPF_K, 0, 3, __NR_socket);
    emit(&f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(0));
    emit(&f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, AF_UNIX);
    emit(&f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
  }
  emit(&f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_KILL_PROCESS);
  struct sock_fprog fprog = {.len = f.len, .filter = f.insns};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(1);
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) _exit(1);
}

/* The relay's own filter: an allow-list of what relay_loop calls; anything else kills it. */
static void relay_seccomp(void) {
  static const uint32_t allowed[] = {
    __NR_epoll_pwait, __NR_epoll_ctl, __NR_accept4, __NR_connect, __NR_read,
    __NR_close, __NR_shutdown, __NR_setsockopt, __NR_write, __NR_mmap, __NR_munmap, __NR_brk,
    __NR_madvise, __NR_mremap, __NR_rt_sigreturn, __NR_restart_syscall, __NR_exit, __NR_exit_group,
    /* glibc's malloc seeds its heap randomisation on first use */
    __NR_getrandom,
#ifdef __NR_epoll_wait
    __NR_epoll_wait,
#endif
  };
  /* unix sockets only, to reach the proxy; the listeners already exist */
  allowlist_seccomp(allowed, sizeof allowed / sizeof allowed[0], 1);
}

/* Close every descriptor but the listeners and `keep`; 0-2 become /dev/null. */
static void relay_close_fds(int keep) {
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) _exit(1);
  for (int fd = 0; fd <= 2; fd++) {
    if (dup2(null, fd) < 0) _exit(1);
  }
  int maxfd = keep > null ? keep : null;
  for (int i = 0; i < nlisteners; i++) {
    if (listeners[i].fd > maxfd) maxfd = listeners[i].fd;
  }
  for (int fd = 3; fd <= maxfd; fd++) {
    int wanted = fd == keep;
    for (int i = 0; i < nlisteners; i++) wanted |= fd == listeners[i].fd;
    if (!wanted) close(fd);
  }
  if (syscall(__NR_close_range, (unsigned)maxfd + 1, ~0U, 0U) != 0 && errno != ENOSYS) _exit(1);
}

/* Runs in the relay process; never returns. `ready` gets one byte once it is confined. */
static void relay_main(int ready, pid_t mid) {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) _exit(1);
  if (setsid() < 0) _exit(1);
  /* Wait to be reparented to the namespace's init, so that the death signal names the right parent. */
  while (getppid() == mid) {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) _exit(1);
  if (prctl(PR_SET_NAME, "sg-proxy-relay", 0, 0, 0) != 0) _exit(1);
  relay_close_fds(ready);
  if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) _exit(1);
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
  }
  relay_epoll = epoll_create1(EPOLL_CLOEXEC);
  if (relay_epoll < 0) _exit(1);
  set_listeners(EPOLL_CTL_ADD);
  /* malloc sets itself up on first use; do it before the filter forbids what that takes */
  free(calloc(1, sizeof(struct conn)));
  relay_seccomp();
  char byte = 1;
  if (write(ready, &byte, 1) != 1) _exit(1);
  close(ready);
  relay_loop();
}

/*
 * Listen on every relay port, then leave the relay running as a child of the PID namespace's init
 * (a double fork): not CMD's child, so CMD never waits for it or sees it exit, and it dies with the
 * namespace when CMD's run ends. Returns once the relay is confined and the ports listen.
 */
static void start_relays(const struct relay *relays, int n) {
  for (int i = 0; i < n; i++) {
    listeners[i].kind = KIND_LISTENER;
    listeners[i].fd = listen_loopback(relays[i].port);
    memset(&listeners[i].addr, 0, sizeof listeners[i].addr);
    listeners[i].addr.sun_family = AF_UNIX;
    memcpy(listeners[i].addr.sun_path, relays[i].path, strlen(relays[i].path) + 1);
  }
  nlisteners = n;
  int sync[2];
  if (pipe2(sync, O_CLOEXEC) != 0) die("pipe2");
  pid_t mid = fork();
  if (mid < 0) die("fork");
  if (mid == 0) {
    /* Not dumpable from the first moment, so the relay below never is. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) _exit(1);
    close(sync[0]);
    /* CMD's argv is for CMD's process alone. */
    if (command_fd >= 0) close(command_fd);
    pid_t self = getpid();
    pid_t relay = fork();
    if (relay < 0) _exit(1);
    if (relay == 0) relay_main(sync[1], self);
    _exit(0);
  }
  close(sync[1]);
  int st;
  while (waitpid(mid, &st, 0) < 0) {
    if (errno != EINTR) die("waitpid");
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) die_msg("could not start the proxy relay");
  char byte = 0;
  ssize_t r;
  do r = read(sync[0], &byte, 1);
  while (r < 0 && errno == EINTR);
  if (r != 1) die_msg("the proxy relay failed to start");
  close(sync[0]);
  for (int i = 0; i < n; i++) close(listeners[i].fd);
}

/* ---------- tunnel splicer (--splice) ---------- */

/*
 * --splice is run by the host's network proxy for a tunnel that already carries bulk data: fd 0 is
 * the client (a sandboxed command, hostile), fd 1 the admitted destination. Whatever the client
 * sends is only ever moved, never parsed. The process must not outlive the proxy (a stopped proxy
 * leaves no tunnel open), must not be readable or steerable through ptrace or /proc (not dumpable),
 * holds nothing but the two sockets, and after setup can make only the calls the loop makes.
 */
static void require_stream_socket(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) {
    fprintf(stderr, "%s: --splice needs a connected stream socket on fd %d\n", prog, fd);
    _exit(EXIT_SETUP);
  }
}

/*
 * The setup both splicer modes share: dies with the proxy, not dumpable, nothing inherited but the
 * two sockets (non-blocking again: the fork that started this process cleared the flag on the
 * descriptions it shares with the proxy), and an epoll set watching both.
 */
static int splicer_setup(void) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)");
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) die("prctl(PR_SET_DUMPABLE)");
  close_inherited_fds();
  require_stream_socket(0);
  require_stream_socket(1);
  if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) die("signal(SIGPIPE)");
  for (int fd = 0; fd <= 1; fd++) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) die("fcntl(O_NONBLOCK)");
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1");
  return ep;
}

static void splicer_seccomp(void) {
  static const uint32_t allowed[] = {
    __NR_epoll_pwait, __NR_read, __NR_write, __NR_shutdown, __NR_close,
    __NR_rt_sigreturn, __NR_restart_syscall, __NR_exit, __NR_exit_group,
#ifdef __NR_epoll_wait
    __NR_epoll_wait,
#endif
  };
  allowlist_seccomp(allowed, sizeof allowed / sizeof allowed[0], 0);
}

static int splice_main(void) {
  /*
   * Not checked: whether the parent died before PR_SET_PDEATHSIG took effect (getppid() cannot tell
   * that from a proxy that is itself PID 1 in a container, and refusing then would lose every
   * handed-over tunnel). The window is between fork and that call, which the sandboxed client cannot
   * aim at; an orphan left by it holds only this one admitted tunnel, until either end closes it.
   * fd 2 stays for setup messages until the filter is in place; it is /dev/null in use.
   */
  int ep = splicer_setup();
  static struct conn c;
  static char buffers[2][SPLICER_BUFFER];
  c.kind = KIND_CONN;
  c.fd[0] = 0;
  c.fd[1] = 1;
  c.buf[0] = buffers[0];
  c.buf[1] = buffers[1];
  c.bufsize = SPLICER_BUFFER;
  for (int d = 0; d < 2; d++) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = &c};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c.fd[d], &ev) != 0) die("epoll_ctl");
  }
  /* No allocation, no new descriptor, no socket: the loop moves bytes, shuts down, exits. */
  splicer_seccomp();
  /* The sockets may already hold data or an end: take a first step before waiting for edges. */
  for (;;) {
    int r = conn_advance(&c);
    if (r < 0) _exit(1);
    if (r > 0) _exit(0);
    struct epoll_event events[2];
    int n = epoll_wait(ep, events, 2, -1);
    if (n < 0 && errno != EINTR) _exit(1);
  }
}

static int splice_body_main(const char *count) {
  char *end = NULL;
  errno = 0;
  unsigned long long want = strtoull(count, &end, 10);
  /* Digits only: strtoull would take a sign or leading blanks, which no caller means. */
  if (count[0] < '0' || count[0] > '9' || *end != '\0' || errno != 0 || want == 0 || want > (1ULL << 62)) die_msg("--splice-body needs a byte count from 1 to 2^62");
  int ep = splicer_setup();
  static char buf[SPLICER_BUFFER];
  struct epoll_event in = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET}, out = {.events = EPOLLOUT | EPOLLET};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, 1, &in) != 0 || epoll_ctl(ep, EPOLL_CTL_ADD, 0, &out) != 0) die("epoll_ctl");
  splicer_seccomp();
  unsigned long long left = want; /* not yet read from fd 1 */
  size_t off = 0, pending = 0;    /* buf[off..off+pending) is read, not yet written to fd 0 */
  for (;;) {
    int blocked = 0;
    while (!blocked) {
      if (pending > 0) {
        ssize_t n = write(0, buf + off, pending);
        if (n > 0) {
          off += (size_t)n;
          pending -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else if (n < 0 && errno == EAGAIN) {
          blocked = 1;
        } else {
          _exit(1);
        }
        continue;
      }
      if (left == 0) _exit(0);
      /* Never past the N bytes: what follows them belongs to the proxy. */
      ssize_t n = read(1, buf, left < sizeof buf ? (size_t)left : sizeof buf);
      if (n > 0) {
        left -= (unsigned long long)n;
        off = 0;
        pending = (size_t)n;
      } else if (n == 0) {
        _exit(3);
      } else if (errno == EINTR) {
        continue;
      } else if (errno == EAGAIN) {
        blocked = 1;
      } else {
        _exit(1);
      }
    }
    struct epoll_event events[2];
    int n = epoll_wait(ep, events, 2, -1);
    if (n < 0 && errno != EINTR) _exit(1);
  }
}

/* ---------- probe ---------- */

static int probe(void) {
  printf("landlock_abi=%d\n", landlock_abi());
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    install_seccomp(NET_OFF, 0);
    /* each of these must now be refused with EPERM */
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != -1 || errno != EPERM) _exit(2);
    if (socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM) _exit(3);
    if (socket(AF_UNIX, SOCK_STREAM, 0) != -1 || errno != EPERM) _exit(4);
    if (syscall(__NR_io_uring_setup, 1, NULL) != -1 || errno != EPERM) _exit(5);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) _exit(6);
    /* refused before the path is looked up: EPERM, where the bare kernel would say ENOENT */
    if (chmod("/nonexistent/shellgate-probe", 04755) != -1 || errno != EPERM) _exit(7);
    if (chmod("/nonexistent/shellgate-probe", 0755) != -1 || errno != ENOENT) _exit(8);
    _exit(0);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) die("waitpid");
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    printf("seccomp=ok\n");
  } else if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_SETUP) {
    printf("seccomp=unavailable\n");
  } else {
    printf("seccomp=ineffective:%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  }
  return 0;
}

/* ---------- deferred command (--command-fd) ---------- */

/*
 * The payload on --command-fd N: a 4-byte little-endian length L, then L bytes holding CMD and its
 * arguments, each ended by a NUL (so L >= 2 and the last byte is a NUL), then the end of the
 * stream. At most MAX_COMMAND_BYTES; an empty program name, a missing NUL, a short or longer stream
 * are refused (EXIT_SETUP). The end of the stream before any byte is a discarded sandbox: exit
 * EXIT_NO_COMMAND without a word. It is read after every confinement step, so what arrives runs
 * at once and nothing it says can change the sandbox.
 */
#define MAX_COMMAND_BYTES (1U << 20)

/* Bytes read into buf, fewer than n only at the end of the stream. */
static size_t read_full(int fd, unsigned char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("read --command-fd");
    if (r == 0) break;
    got += (size_t)r;
  }
  return got;
}

/* A payload that is not one: say why, run nothing. */
#define REFUSE_COMMAND(...) \
  do { \
    fprintf(stderr, "%s: --command-fd: ", prog); \
    fprintf(stderr, __VA_ARGS__); \
    fputc('\n', stderr); \
    _exit(EXIT_SETUP); \
  } while (0)

static char **read_command(int fd) {
  unsigned char head[4];
  size_t got = read_full(fd, head, sizeof head);
  if (got == 0) _exit(EXIT_NO_COMMAND);
  if (got < sizeof head) REFUSE_COMMAND("the stream ended after %zu of the 4 length bytes", got);
  uint32_t len = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24;
  if (len > MAX_COMMAND_BYTES) REFUSE_COMMAND("a command of %lu bytes is over the limit of 1 MiB", (unsigned long)len);
  if (len == 0) REFUSE_COMMAND("an empty command (length 0, no program)");
  unsigned char *buf = malloc(len);
  if (!buf) die("malloc");
  got = read_full(fd, buf, len);
  if (got < len) REFUSE_COMMAND("the stream ended after %zu of the command's %lu bytes", got, (unsigned long)len);
  unsigned char extra;
  if (read_full(fd, &extra, 1) != 0) REFUSE_COMMAND("bytes follow the command's %lu bytes", (unsigned long)len);
  if (close(fd) != 0) die("close --command-fd");
  if (buf[len - 1] != '\0') REFUSE_COMMAND("the last argument is not NUL-terminated");
  if (buf[0] == '\0') REFUSE_COMMAND("the program name is empty");
  size_t argc = 0;
  for (uint32_t k = 0; k < len; k++) argc += buf[k] == '\0';
  char **argv = calloc(argc + 1, sizeof *argv);
  if (!argv) die("calloc");
  size_t a = 0;
  for (uint32_t k = 0; k < len; k += (uint32_t)strlen((char *)buf + k) + 1) argv[a++] = (char *)buf + k;
  argv[a] = NULL;
  return argv;
}

/* ---------- main ---------- */

static void usage(void) {
  fprintf(stderr,
          "usage: %s [--cgroup DIR] --net off|on [--special-files landlock|refuse] [--landlock [--rw DIR]...] [--special-dir DIR]... [--reap] [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]\n"
          "       %s [--cgroup DIR] --net proxy --relay PORT=/SOCKET... [--special-files landlock|refuse] [--special-dir DIR]... [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]\n"
          "       (either with --command-fd N instead of -- CMD [ARG...]: CMD then comes from descriptor N)\n"
          "       %s [--cgroup DIR] [--placeholder LOCK DIR]... --exec-only -- /ABS/PROG [ARG...]\n"
          "       %s --release-placeholders --placeholder LOCK DIR...\n"
          "       %s --hold-placeholders --placeholder LOCK DIR...\n"
          "       %s --probe\n"
          "       %s --splice\n"
          "       %s --splice-body N\n",
          prog, prog, prog, prog, prog, prog, prog, prog);
  _exit(EXIT_SETUP);
}

int main(int argc, char **argv) {
  int network = -1, landlock = 0, reap = 0, nrw = 0, nenv = 0, exec_only = 0, foreground = 0, nrelays = 0, i;
  int release = 0, hold = 0, nph = 0, nspecial = 0;
  enum special_mode special_mode = SPECIAL_ANYWHERE;
  int special_given = 0;
  char *special[MAX_RW];
  struct placeholder ph[MAX_PLACEHOLDERS];
  struct relay relays[MAX_RELAYS];
  long nproc = 0;
  const char *cgroup = NULL;
  char *rw[MAX_RW];
  char *envs[MAX_ENV];
  int dashdash = 0;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      dashdash = 1;
      i++;
      break;
    } else if (strcmp(a, "--probe") == 0) {
      return probe();
    } else if (strcmp(a, "--splice") == 0) {
      /* Nothing else is meaningful with it; a combination is a caller's mistake, refused. */
      if (argc != 2) die_msg("--splice takes no other arguments");
      return splice_main();
    } else if (strcmp(a, "--splice-body") == 0) {
      if (argc != 3) die_msg("--splice-body takes a byte count and no other arguments");
      return splice_body_main(argv[2]);
    } else if (strcmp(a, "--net") == 0 && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "off") == 0) network = NET_OFF;
      else if (strcmp(v, "on") == 0) network = NET_ON;
      else if (strcmp(v, "proxy") == 0) network = NET_PROXY;
      else usage();
    } else if (strcmp(a, "--relay") == 0 && i + 1 < argc) {
      char *spec = argv[++i];
      char *eq = strchr(spec, '=');
      char *end;
      if (nrelays >= MAX_RELAYS) die_msg("too many --relay ports");
      if (!eq) die_msg("--relay needs PORT=/SOCKET");
      errno = 0;
      long port = strtol(spec, &end, 10);
      if (errno != 0 || end != eq || port < 1 || port > 65535) die_msg("--relay needs a port from 1 to 65535");
      const char *sock = eq + 1;
      if (sock[0] != '/') die_msg("--relay needs an absolute socket path");
      if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path)) die_msg("--relay socket path too long");
      for (int r = 0; r < nrelays; r++) {
        if (relays[r].port == (int)port) die_msg("--relay ports must differ");
      }
      relays[nrelays].port = (int)port;
      relays[nrelays].path = sock;
      relays[nrelays].fd = -1;
      nrelays++;
    } else if (strcmp(a, "--landlock") == 0) {
      landlock = 1;
    } else if (strcmp(a, "--special-files") == 0 && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "landlock") == 0) special_mode = SPECIAL_LANDLOCK;
      else if (strcmp(v, "refuse") == 0) special_mode = SPECIAL_REFUSE;
      else usage();
      special_given = 1;
    } else if (strcmp(a, "--special-dir") == 0 && i + 1 < argc) {
      if (nspecial >= MAX_RW) die_msg("too many --special-dir directories");
      if (argv[i + 1][0] != '/') die_msg("--special-dir needs an absolute path");
      special[nspecial++] = argv[++i];
    } else if (strcmp(a, "--reap") == 0) {
      reap = 1;
    } else if (strcmp(a, "--foreground") == 0) {
      foreground = 1;
    } else if (strcmp(a, "--exec-only") == 0) {
      exec_only = 1;
    } else if (strcmp(a, "--release-placeholders") == 0) {
      release = 1;
    } else if (strcmp(a, "--hold-placeholders") == 0) {
      hold = 1;
    } else if (strcmp(a, "--placeholder") == 0 && i + 2 < argc) {
      if (nph >= MAX_PLACEHOLDERS) die_msg("too many --placeholder directories");
      ph[nph].lock = argv[++i];
      ph[nph].dir = argv[++i];
      if (ph[nph].lock[0] != '/' || ph[nph].dir[0] != '/') die_msg("--placeholder needs absolute paths");
      nph++;
    } else if (strcmp(a, "--cgroup") == 0 && i + 1 < argc) {
      cgroup = argv[++i];
      if (cgroup[0] != '/') die_msg("--cgroup needs an absolute path");
    } else if (strcmp(a, "--nproc") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      nproc = strtol(argv[++i], &end, 10);
      if (errno != 0 || *end != '\0' || nproc < 1) die_msg("--nproc needs a positive number");
    } else if (strcmp(a, "--command-fd") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      long fd = strtol(argv[++i], &end, 10);
      if (errno != 0 || *end != '\0' || fd < 3 || fd > INT_MAX) die_msg("--command-fd needs a descriptor number above 2");
      command_fd = (int)fd;
    } else if (strcmp(a, "--setenv") == 0 && i + 1 < argc) {
      char *kv = argv[++i];
      char *eq = strchr(kv, '=');
      if (nenv >= MAX_ENV) die_msg("too many --setenv variables");
      if (!eq || eq == kv) die_msg("--setenv needs NAME=VALUE");
      envs[nenv++] = kv;
    } else if (strcmp(a, "--rw") == 0 && i + 1 < argc) {
      if (nrw >= MAX_RW) die_msg("too many --rw directories");
      if (argv[i + 1][0] != '/') die_msg("--rw needs an absolute path");
      rw[nrw++] = argv[++i];
    } else {
      usage();
    }
  }
  int others = network >= 0 || landlock || reap || nrw || nenv || nproc || foreground || nrelays || special_given || nspecial || command_fd >= 0;
  if (release && hold) die_msg("--release-placeholders and --hold-placeholders exclude each other");
  if (release) {
    if (nph == 0 || i < argc || exec_only || cgroup || others) die_msg("--release-placeholders takes only --placeholder");
    return release_placeholders(ph, nph);
  }
  if (hold) {
    if (nph == 0 || i < argc || exec_only || cgroup || others) die_msg("--hold-placeholders takes only --placeholder");
    return hold_for_session(ph, nph);
  }
  if (exec_only) {
    /* Only the cgroup move and the placeholders, then PROG (bubblewrap) as given: it sets up the sandbox itself. */
    if ((!cgroup && nph == 0) || i >= argc) usage();
    if (others) die_msg("--exec-only takes only --cgroup and --placeholder");
    if (argv[i][0] != '/') die_msg("--exec-only needs an absolute program path");
    if (cgroup) join_cgroup(cgroup);
    int lock_fds[MAX_PLACEHOLDERS];
    hold_placeholders(ph, nph, lock_fds);
    if (nph > 0) run_then_release(argv + i, ph, nph, lock_fds);
    execv(argv[i], argv + i);
    fprintf(stderr, "%s: exec %s: %s\n", prog, argv[i], strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (nph > 0) die_msg("--placeholder is only meaningful with --exec-only, --release-placeholders or --hold-placeholders");
  if (command_fd >= 0 && dashdash) die_msg("--command-fd replaces -- CMD [ARG...]; give one of them");
  if (network < 0 || (command_fd < 0 && i >= argc)) usage();
  if (command_fd >= 0) {
    int flags = fcntl(command_fd, F_GETFD);
    if (flags < 0) die_msg("--command-fd names a descriptor that is not open");
    /* Until it is read: nothing this process starts may inherit it. */
    if (fcntl(command_fd, F_SETFD, flags | FD_CLOEXEC) != 0) die("fcntl(F_SETFD)");
  }
  if (nrw > 0 && !landlock) die_msg("--rw is only meaningful with --landlock");
  /* The fallback layer's ruleset already handles the special-file rights; a second mode would contradict it. */
  if (landlock && special_given) die_msg("--special-files is for bubblewrap runs; with --landlock, --special-dir alone says where they may be made");
  if (nspecial > 0 && !landlock && special_mode != SPECIAL_LANDLOCK) die_msg("--special-dir needs --landlock or --special-files landlock");
  if ((network == NET_PROXY) != (nrelays > 0)) die_msg("--net proxy needs --relay, and --relay needs --net proxy");
  /* Without a network namespace of its own, CMD's IP sockets would reach the host's network. */
  if (network == NET_PROXY && (landlock || reap)) die_msg("--net proxy needs bubblewrap's network namespace; it cannot be used with --landlock or --reap");

  if (cgroup) join_cgroup(cgroup);
  close_inherited_fds();
  /* The reaper forks first so the command's Landlock domain is nested below it: with signal
     scoping the command cannot kill the reaper to orphan its background processes. */
  if (reap) run_reaped(); /* returns only in the child */
  /* Before CMD's filter (which refuses AF_UNIX) and before CMD: the ports already listen when it starts. */
  if (network == NET_PROXY) start_relays(relays, nrelays);
  if (foreground) take_terminal_foreground();
  if (landlock) apply_landlock(rw, nrw, special, nspecial, network == NET_OFF);
  if (special_mode == SPECIAL_LANDLOCK) restrict_special_files(special, nspecial);
  if (nproc > 0) limit_processes(nproc);
  install_seccomp((enum net_mode)network, special_mode == SPECIAL_REFUSE);
  char **cmd = command_fd >= 0 ? read_command(command_fd) : argv + i;
  for (int e = 0; e < nenv; e++) {
    if (putenv(envs[e]) != 0) die("putenv");
  }
  exec_command(cmd);
  return EXIT_SETUP;
}
