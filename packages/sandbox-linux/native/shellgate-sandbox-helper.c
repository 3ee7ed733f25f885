/*
 * shellgate-sandbox-helper: the last step before a sandboxed command runs.
 *
 *   shellgate-sandbox-helper [--cgroup DIR] --net off|on [--landlock [--rw DIR]...] [--reap] [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]
 *   shellgate-sandbox-helper --cgroup DIR --exec-only -- /ABS/PROG [ARG...]
 *   shellgate-sandbox-helper --probe
 *
 * It closes inherited descriptors above 2, optionally confines itself with Landlock (layer 3,
 * when user namespaces are unavailable), sets no_new_privs, installs a seccomp filter (layer 2)
 * and execs CMD. Under bubblewrap (layer 1) it runs inside the new namespaces. --nproc caps the
 * processes of CMD's user (RLIMIT_NPROC: per user namespace, so under bubblewrap it counts the
 * sandbox's processes only; the kernel does not enforce it for root). --cgroup first moves this
 * process into a prepared cgroup (pids.max), which binds root too; with --exec-only that is all it
 * does before exec'ing PROG (bubblewrap), so the whole sandbox starts inside the cgroup. Variables that make
 * the dynamic loader run code (LD_PRELOAD...) reach CMD only through --setenv, applied at the very
 * end, so they never act on bubblewrap or on this helper. --foreground (only for a terminal the caller
 * allocated for this run) makes CMD a process group of its own and the terminal's foreground group,
 * so that Ctrl-C and Ctrl-Z reach CMD and its jobs, never bubblewrap or the reaper.
 *
 * This is security code: every system call is checked and any failure aborts before CMD runs
 * (exit 125). 127 means CMD was not found, 126 that it could not be executed.
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
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_SETUP 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127
#define MAX_RW 256
#define MAX_ENV 256

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

static void build_filter(struct filter *f, int network_off) {
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

  if (network_off) {
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
    /* socketpair stays for in-process IPC, stream/seqpacket only: a datagram socket could sendto() a host path */
    load_nr(f);
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 7, __NR_socketpair);
    emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(0));
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AF_UNIX);
    emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
    emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, ARG_LO(1));
    emit(f, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xf);
    emit(f, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SOCK_DGRAM);
    emit(f, BPF_RET | BPF_K, 0, 0, RET_ERRNO(EPERM));
  } else {
    /* network granted: still no VM sockets (hypervisor bridges) */
    deny_arg_eq(f, __NR_socket, 0, AF_VSOCK);
  }
  emit(f, BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW);
}

static void install_seccomp(int network_off) {
  static struct filter f;
  build_filter(&f, network_off);
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
  struct sg_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
  if (syscall(SG_NR_landlock_add_rule, ruleset, SG_LL_RULE_PATH_BENEATH, &attr, 0) != 0) {
    fprintf(stderr, "%s: landlock_add_rule %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (close(fd) != 0) die("close");
}

static void apply_landlock(char **rw, int nrw, int network_off) {
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
  for (int i = 0; i < nrw; i++) add_path_rule(ruleset, rw[i], all, 1);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  if (syscall(SG_NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
  if (close(ruleset) != 0) die("close");
}

/* ---------- descriptors, reaping, exec ---------- */

static void close_inherited_fds(void) {
  if (syscall(__NR_close_range, 3U, ~0U, 0U) == 0) return;
  if (errno != ENOSYS) die("close_range");
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 1 << 20) max = 1 << 20;
  for (long fd = 3; fd < max; fd++) close((int)fd);
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

/* Move this process into the cgroup DIR (prepared by the caller, with pids.max set). */
static void join_cgroup(const char *dir) {
  char path[PATH_MAX], pid[32];
  if (snprintf(path, sizeof path, "%s/cgroup.procs", dir) >= (int)sizeof path) die_msg("--cgroup path too long");
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "%s: open %s: %s\n", prog, path, strerror(errno));
    _exit(EXIT_SETUP);
  }
  int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (write(fd, pid, (size_t)n) != n) {
    fprintf(stderr, "%s: joining cgroup %s: %s\n", prog, dir, strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (close(fd) != 0) die("close");
}

static void limit_processes(long n) {
  struct rlimit rl = {.rlim_cur = (rlim_t)n, .rlim_max = (rlim_t)n};
  if (setrlimit(RLIMIT_NPROC, &rl) != 0) die("setrlimit(RLIMIT_NPROC)");
}

/* ---------- probe ---------- */

static int probe(void) {
  printf("landlock_abi=%d\n", landlock_abi());
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    install_seccomp(1);
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

/* ---------- main ---------- */

static void usage(void) {
  fprintf(stderr,
          "usage: %s [--cgroup DIR] --net off|on [--landlock [--rw DIR]...] [--reap] [--nproc N] [--foreground] [--setenv NAME=VALUE]... -- CMD [ARG...]\n"
          "       %s --cgroup DIR --exec-only -- /ABS/PROG [ARG...]\n"
          "       %s --probe\n",
          prog, prog, prog);
  _exit(EXIT_SETUP);
}

int main(int argc, char **argv) {
  int network = -1, landlock = 0, reap = 0, nrw = 0, nenv = 0, exec_only = 0, foreground = 0, i;
  long nproc = 0;
  const char *cgroup = NULL;
  char *rw[MAX_RW];
  char *envs[MAX_ENV];
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--probe") == 0) {
      return probe();
    } else if (strcmp(a, "--net") == 0 && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "off") == 0) network = 0;
      else if (strcmp(v, "on") == 0) network = 1;
      else usage();
    } else if (strcmp(a, "--landlock") == 0) {
      landlock = 1;
    } else if (strcmp(a, "--reap") == 0) {
      reap = 1;
    } else if (strcmp(a, "--foreground") == 0) {
      foreground = 1;
    } else if (strcmp(a, "--exec-only") == 0) {
      exec_only = 1;
    } else if (strcmp(a, "--cgroup") == 0 && i + 1 < argc) {
      cgroup = argv[++i];
      if (cgroup[0] != '/') die_msg("--cgroup needs an absolute path");
    } else if (strcmp(a, "--nproc") == 0 && i + 1 < argc) {
      char *end;
      errno = 0;
      nproc = strtol(argv[++i], &end, 10);
      if (errno != 0 || *end != '\0' || nproc < 1) die_msg("--nproc needs a positive number");
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
  if (exec_only) {
    /* Only the cgroup move, then PROG (bubblewrap) as given: it sets up the sandbox itself. */
    if (!cgroup || i >= argc) usage();
    if (network >= 0 || landlock || reap || nrw || nenv || nproc || foreground) die_msg("--exec-only takes only --cgroup");
    if (argv[i][0] != '/') die_msg("--exec-only needs an absolute program path");
    join_cgroup(cgroup);
    execv(argv[i], argv + i);
    fprintf(stderr, "%s: exec %s: %s\n", prog, argv[i], strerror(errno));
    _exit(EXIT_SETUP);
  }
  if (network < 0 || i >= argc) usage();
  if (nrw > 0 && !landlock) die_msg("--rw is only meaningful with --landlock");

  if (cgroup) join_cgroup(cgroup);
  close_inherited_fds();
  /* The reaper forks first so the command's Landlock domain is nested below it: with signal
     scoping the command cannot kill the reaper to orphan its background processes. */
  if (reap) run_reaped(); /* returns only in the child */
  if (foreground) take_terminal_foreground();
  if (landlock) apply_landlock(rw, nrw, network == 0);
  if (nproc > 0) limit_processes(nproc);
  install_seccomp(network == 0);
  for (int e = 0; e < nenv; e++) {
    if (putenv(envs[e]) != 0) die("putenv");
  }
  exec_command(argv + i);
  return EXIT_SETUP;
}
