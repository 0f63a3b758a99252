package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// tree is the processes of one command: a job object that holds the
// command and everything it starts, whose last handle, the harness's,
// kills them all when closed (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), so
// they end with the harness too. The command starts suspended and runs
// only once it is in the job, so nothing it starts can be outside.
type tree struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle // 0 before started and after release
}

// newTree sets cmd up to start suspended, in a console process group of
// its own (a Ctrl-C at the console is the harness's to handle), and
// returns its tree.
func newTree(cmd *exec.Cmd) *tree {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	return &tree{cmd: cmd}
}

// started puts the command, started suspended, in a new job and lets it
// run.
func (t *tree) started() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("setting the job object up: %w", err)
	}
	pid := uint32(t.cmd.Process.Pid)
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("opening the process: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, proc)
	windows.CloseHandle(proc)
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("putting the process in its job: %w", err)
	}
	t.mu.Lock()
	t.job = job
	t.mu.Unlock()
	return resume(pid)
}

// resume lets the threads of the suspended process pid run: its first.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := false
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return fmt.Errorf("opening a thread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resuming a thread: %w", err)
		}
		resumed = true
	}
	if !resumed {
		return errors.New("the process has no thread to resume")
	}
	return nil
}

// kill kills every process of the tree: the job's, or the command alone
// before it is in one.
func (t *tree) kill() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		return windows.TerminateJobObject(t.job, 1)
	}
	if t.cmd.Process != nil {
		return t.cmd.Process.Kill()
	}
	return nil
}

// release closes the job, which kills whatever is still in it.
func (t *tree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
