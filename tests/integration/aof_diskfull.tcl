# aof_diskfull.tcl -- a disk that fills up or fails (ENOSPC, EIO) under the
# AOF and under BGSAVE: writes are refused with -MISCONF, no reply claims a
# write the disk did not take, INFO says err, and the server recovers by
# itself once the disk does; after a restart every acknowledged write is
# there. Two ways to break the disk:
#   * tests/helpers/faultfs.c, an LD_PRELOAD shim (make builds it next to
#     the server of its build; compiled here if missing): write/fsync/rename
#     of files under one directory fail while a control file exists (runs
#     anywhere);
#   * a real 2 MB tmpfs mounted over the server's dir (needs root and
#     mount(8); skipped otherwise, unmounted at the end).
# DEBUG LOADAOF is refused while the AOF cannot be flushed.
source [file join [file dirname [info script]] .. helpers harness.tcl]

set is_cairn [string match *cairn* [file tail $::cairn(server)]]

# The shim: make's build of it (next to the server, else build/normal) when
# it is current, else compiled into tmp.
proc faultfs_lib {} {
    set src [file join $::cairn_h::root tests helpers faultfs.c]
    foreach lib [list [file join [file dirname $::cairn(server)] faultfs.so] \
                     [file join $::cairn_h::root build normal faultfs.so]] {
        if {[file exists $lib] && [file mtime $lib] >= [file mtime $src]} { return $lib }
    }
    set lib [file join $::cairn(tmp) faultfs.so]
    if {![file exists $lib]} { exec cc -O2 -fPIC -shared -o $lib $src -ldl }
    return $lib
}

set ::seq 0
# A fresh data directory outside the harness' server dir, so the log (kept
# in the server dir) is never part of the broken disk.
proc data_dir {} {
    set d [file join $::cairn(tmp) data-[incr ::seq]]
    file mkdir $d
    return $d
}

# Start a server whose `dir` is $dir, with the shim scoped to $dir and
# armed by the control file $ctl.
proc fault_server {dir ctl args} {
    set saved [array get ::env]
    set ::env(LD_PRELOAD) [faultfs_lib]
    set ::env(FAULTFS_DIR) [file normalize $dir]
    set ::env(FAULTFS_CONTROL) $ctl
    set asan verify_asan_link_order=0
    if {[info exists ::env(ASAN_OPTIONS)]} { set asan "$::env(ASAN_OPTIONS):$asan" }
    set ::env(ASAN_OPTIONS) $asan
    try {
        return [start_server -config [list dir $dir {*}$args]]
    } finally {
        foreach v {LD_PRELOAD FAULTFS_DIR FAULTFS_CONTROL ASAN_OPTIONS} { unset -nocomplain ::env($v) }
        foreach {k v} $saved { set ::env($k) $v }
    }
}
proc fault_on {ctl {words ""}} { write_bytes $ctl $words }
proc fault_off {ctl} { file delete -force $ctl }

# No reply within ms (a held reply, or nothing yet): the client stays usable.
proc no_reply_within {c ms} {
    set saved $::cairn_h::tmo($c)
    set_timeout $c $ms
    set got [catch {read_reply $c} e]
    set_timeout $c $saved
    if {!$got} { error "got a reply while none was expected: $e" }
    if {![string match *timeout* $e]} { error $e }
}

proc check_keys {c keys} {
    foreach {k v} $keys {
        set got [r $c GET $k]
        if {$got ne $v} { error "acknowledged write $k=$v lost after restart (found '$got')" }
    }
}

# One outage under `policy`, with the shim told `words`: writes acked
# before it, a write in flight when it starts, refused writes during it,
# recovery by itself, writes after it, then a restart (the shim gone) that
# must show every acknowledged write.
proc outage {policy words} {
    set dir [data_dir]
    set ctl [file join $::cairn(tmp) ctl-$::seq]
    set srv [fault_server $dir $ctl appendonly yes appendfsync $policy]
    set c [client $srv -timeout 5000]
    set acked {}
    for {set i 0} {$i < 20} {incr i} {
        assert_equal OK [r $c SET before:$i v$i]
        lappend acked before:$i v$i
    }
    # let an everysec fsync of those settle so the fault meets new bytes
    if {$policy eq "everysec"} { after 1100 }
    fault_on $ctl $words
    set w [client $srv -timeout 5000]
    set held_reply ""
    if {$policy eq "always"} {
        # The write that meets the broken disk is never acknowledged while
        # the disk fails ...
        send_cmd $w SET inflight 1
        no_reply_within $w 1500
    } else {
        # (everysec acknowledges first; the error shows at the write or fsync)
        assert_equal OK [r $w SET inflight 1]
    }
    wait_for {[info_field $c aof_last_write_status] eq "err"} 5000
    # ... later writes are refused, with the error Redis gives ...
    assert_error "MISCONF Errors writing to the AOF file: *" {r $c SET refused 1}
    # Reads: under always they wait (they could show a write not on disk,
    # see held_read below); everysec answers them.
    if {$policy eq "everysec"} { assert_equal 1 [r $c EXISTS before:0] }
    set reader [client $srv -timeout 5000]
    if {$policy eq "always"} {
        send_cmd $reader EXISTS before:0
        no_reply_within $reader 300
    }
    # ... and it stays that way while the disk is broken (retries fail).
    after 1200
    assert_equal err [info_field $c aof_last_write_status]
    assert_error "MISCONF *" {r $c SET refused 2}
    fault_off $ctl
    # Recovery, by itself: the retry in the cron succeeds.
    wait_for {[info_field $c aof_last_write_status] eq "ok"} 5000
    if {$policy eq "always"} {
        # the held reply went out only now, and it is the true one
        assert_equal OK [read_reply $w]
        assert_equal 1 [read_reply $reader]
    }
    lappend acked inflight 1
    for {set i 0} {$i < 20} {incr i} {
        assert_equal OK [r $c SET after:$i v$i]
        lappend acked after:$i v$i
    }
    if {$policy eq "everysec"} {
        wait_for {[info_field $c aof_buffer_length] == 0 && [info_field $c aof_pending_bio_fsync] == 0}
        after 1100
        wait_for {[info_field $c aof_pending_bio_fsync] == 0}
    }
    kill_server $srv
    # A restart that refuses any cut command proves no partial write is left.
    dict set srv config [list dir $dir appendonly yes appendfsync $policy aof-load-truncated no]
    set srv [restart_server $srv]
    set c [client $srv]
    check_keys $c $acked
    assert_equal "" [r $c GET refused]
    kill_server $srv
}

foreach {policy words} {
    always "write ENOSPC"
    always "fsync EIO"
    always "after=10 ENOSPC"
    everysec "write ENOSPC"
    everysec "fsync EIO"
    everysec "after=10 ENOSPC"
} {
    test "faultfs: $words under appendfsync $policy: MISCONF, nothing false acknowledged, recovers by itself" {
        if {!$is_cairn && $policy eq "always"} { skip_test "redis-server exits on an AOF error under always" }
        outage $policy $words
    }
}

# An AOF server under `policy` on a fresh data dir with the shim: its
# handle, control file and a client.
proc fault_aof_server {policy} {
    set dir [data_dir]
    set ctl [file join $::cairn(tmp) ctl-$::seq]
    set srv [fault_server $dir $ctl appendonly yes appendfsync $policy]
    return [list $srv $ctl [client $srv -timeout 5000]]
}

test "faultfs: a held write's client killed during the outage: the write is not in the AOF" {
    if {!$is_cairn} { skip_test "redis-server exits on an AOF error under always" }
    lassign [fault_aof_server always] srv ctl c
    assert_equal OK [r $c SET a 1]
    fault_on $ctl "write ENOSPC"
    send_cmd $c SET b 2
    no_reply_within $c 1200
    # the server dies before the disk comes back: b was never acknowledged
    kill_server $srv
    fault_off $ctl
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 1 [r $c GET a]
    assert_equal "" [r $c GET b]
    kill_server $srv
}

test "Rewrites that keep failing: a due automatic rewrite is held back, logged once in Redis' words" {
    set srv [start_server -config {appendonly yes auto-aof-rewrite-percentage 0 rdb-key-save-delay 1000000}]
    set c [client $srv]
    r $c SET k v
    # three rewrites killed in the middle (each child sleeps on its key)
    for {set i 1} {$i <= 3} {incr i} {
        r $c BGREWRITEAOF
        wait_for {![catch {exec pgrep -P [dict get $srv pid]} pids]}
        exec kill -9 {*}$pids
        wait_for {[info_field $c aof_rewrite_in_progress] == 0}
        assert_equal $i [info_field $c aof_rewrites_consecutive_failures]
    }
    # the AOF is now well past its growth threshold: the cron holds the
    # rewrite back and says so, once
    r $c CONFIG SET auto-aof-rewrite-min-size 1024
    r $c CONFIG SET auto-aof-rewrite-percentage 1
    r $c SET big [string repeat x 2048]
    wait_for {[string match "*triggered the limit*" [log_tail $srv 10]]} 5000
    after 1500
    assert_equal 0 [info_field $c aof_rewrite_in_progress]
    assert_equal 1 [regexp -all {triggered the limit} [read_bytes [dict get $srv log]]]
    # BGREWRITEAOF is not held back
    r $c CONFIG SET rdb-key-save-delay 0
    r $c CONFIG SET auto-aof-rewrite-percentage 0
    assert_match "Background append only file rewriting*" [r $c BGREWRITEAOF]
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites_consecutive_failures] == 0}
    kill_server $srv
}

test "faultfs: a rewrite that cannot install its files fails cleanly and is retried with backoff" -tags {slow} {
    if {!$is_cairn} { skip_test "cairn's retry log line" }
    set dir [data_dir]
    set ctl [file join $::cairn(tmp) ctl-$::seq]
    set srv [fault_server $dir $ctl appendonly yes appendfsync everysec \
            auto-aof-rewrite-percentage 100 auto-aof-rewrite-min-size 1]
    set c [client $srv -timeout 5000]
    for {set i 0} {$i < 50} {incr i} { r $c SET k:$i [string repeat x 100] }
    wait_for {[info_field $c aof_rewrites] >= 1}
    set manifest [read_bytes [file join $dir appendonlydir appendonly.aof.manifest]]
    # rename fails: the child writes its base, the parent cannot install it
    fault_on $ctl "rename EIO"
    for {set i 0} {$i < 200} {incr i} { r $c SET k:$i [string repeat y 100] }
    wait_for {[info_field $c aof_rewrites_consecutive_failures] >= 1} 10000
    assert_equal err [info_field $c aof_last_bgrewrite_status]
    # writes keep flowing to the incremental file: the AOF itself is fine
    assert_equal ok [info_field $c aof_last_write_status]
    assert_equal OK [r $c SET during 1]
    assert_match "*AOF rewrite failed 1 time(s) in a row: next automatic attempt in 5 s*" [log_tail $srv 30]
    # no temp file left, and the previous set loads
    assert_equal {} [glob -nocomplain -directory [file join $dir appendonlydir] temp-*]
    fault_off $ctl
    wait_for {[info_field $c aof_last_bgrewrite_status] eq "ok"} 15000
    assert_equal 0 [info_field $c aof_rewrites_consecutive_failures]
    assert_not_equal $manifest [read_bytes [file join $dir appendonlydir appendonly.aof.manifest]]
    set digest [r $c DEBUG DIGEST]
    kill_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

# ---- a real full disk: a 2 MB tmpfs ----

proc with_tmpfs {dir body} {
    if {[catch {exec mount -t tmpfs -o size=2m tmpfs $dir} e]} { skip_test "cannot mount a tmpfs: $e" }
    try {
        uplevel 1 $body
    } finally {
        ::cairn_h::kill_all
        catch {exec umount -l $dir}
    }
}
# Fill the disk, leaving about `leave` bytes free.
proc fill_disk {dir leave} {
    set filler [file join $dir filler]
    file delete -force $filler
    set free [lindex [exec df -B1 --output=avail $dir] end]
    set n [expr {$free - $leave}]
    if {$n > 0} { exec dd if=/dev/zero of=$filler bs=4096 count=[expr {$n / 4096}] 2>/dev/null }
    return $filler
}
# SET 1000-byte values until one fails: returns {acked-keys error}.
proc write_until_error {c} {
    set acked {}
    for {set i 0} {$i < 500} {incr i} {
        if {[catch {r $c SET key:$i [string repeat v 1000]} e]} { return [list $acked $e] }
        lappend acked key:$i
    }
    error "the disk never filled up"
}

foreach policy {always everysec} {
    test "tmpfs: the AOF fills the disk under appendfsync $policy, recovers when space is freed" {
        if {!$is_cairn && $policy eq "always"} { skip_test "redis-server exits on an AOF error under always" }
        set dir [data_dir]
        with_tmpfs $dir {
            set srv [start_server -config [list dir $dir appendonly yes appendfsync $policy]]
            set c [client $srv -timeout 3000]
            set filler [fill_disk $dir 64000]
            lassign [write_until_error $c] acked failed
            if {$policy eq "always"} {
                # the write that found the disk full never got its reply
                assert_match "*timeout*" $failed
            } else {
                # everysec acknowledged it; the next write was refused
                assert_match "MISCONF Errors writing to the AOF file: No space left on device" $failed
            }
            set c2 [client $srv -timeout 3000]
            assert_equal err [info_field $c2 aof_last_write_status]
            assert_error "MISCONF Errors writing to the AOF file: No space left on device" {r $c2 SET x 1}
            assert_match "*Error writing to the AOF file: No space left on device*" [log_tail $srv 20]
            file delete $filler
            wait_for {[info_field $c2 aof_last_write_status] eq "ok"} 5000
            if {$policy eq "always"} {
                # the held reply arrives now
                assert_equal OK [read_reply $c]
                lappend acked key:[llength $acked]
            }
            # and writes are accepted again
            assert_equal OK [r $c2 SET x 1]
            if {$policy eq "everysec"} {
                wait_for {[info_field $c2 aof_buffer_length] == 0}
                after 1100
                wait_for {[info_field $c2 aof_pending_bio_fsync] == 0}
            }
            kill_server $srv
            set srv [restart_server $srv]
            set c [client $srv]
            foreach k $acked { assert_equal 1000 [r $c STRLEN $k] }
            assert_equal 1 [r $c GET x]
            kill_server $srv
        }
    }
}

test "tmpfs: BGREWRITEAOF on a full disk fails cleanly; the previous files stay and load" {
    set dir [data_dir]
    with_tmpfs $dir {
        set srv [start_server -config [list dir $dir appendonly yes appendfsync everysec auto-aof-rewrite-percentage 0 rdbcompression no]]
        set c [client $srv -timeout 3000]
        # about 600 KB of data: the base will not fit in what is left
        for {set i 0} {$i < 600} {incr i} { r $c SET k:$i [string repeat z 1000] }
        set filler [fill_disk $dir 200000]
        set before [lsort [glob -directory [file join $dir appendonlydir] *]]
        r $c BGREWRITEAOF
        wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_last_bgrewrite_status] eq "err"} 10000
        # no temp file left behind
        assert_equal {} [glob -nocomplain -directory [file join $dir appendonlydir] temp-*]
        assert_equal ok [info_field $c aof_last_write_status]
        set digest [r $c DEBUG DIGEST]
        file delete $filler
        kill_server $srv
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal $digest [r $c DEBUG DIGEST]
        kill_server $srv
    }
}

test "faultfs: DEBUG LOADAOF while the AOF cannot be written: refused, the acknowledged writes kept" {
    if {!$is_cairn} { skip_test "redis-server reloads anyway and loses what was not written" }
    lassign [fault_aof_server everysec] srv ctl c
    assert_equal OK [r $c SET a 1]
    fault_on $ctl "write ENOSPC"
    # acknowledged (everysec), but the write to the file fails
    assert_equal OK [r $c SET b 2]
    wait_for {[info_field $c aof_last_write_status] eq "err"} 5000
    set digest [r $c DEBUG DIGEST]
    assert_error "*DEBUG LOADAOF: flushing the AOF failed (No space left on device)*" {r $c DEBUG LOADAOF}
    # nothing was emptied or reloaded: b (only in memory) is still there
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal {1 2} [r $c MGET a b]
    fault_off $ctl
    wait_for {[info_field $c aof_last_write_status] eq "ok"} 5000
    # with the disk back the flush works, and the files hold b
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "tmpfs: BGSAVE on a full disk fails cleanly, keeps the old dump, and the save point retries" -tags {slow} {
    set dir [data_dir]
    with_tmpfs $dir {
        set srv [start_server -config [list dir $dir rdbcompression no]]
        set c [client $srv -timeout 3000]
        for {set i 0} {$i < 600} {incr i} { r $c SET k:$i [string repeat z 1000] }
        assert_equal OK [r $c SAVE]
        set dump [read_bytes [file join $dir dump.rdb]]
        r $c SET k:0 changed
        set filler [fill_disk $dir 200000]
        r $c CONFIG SET save "1 1"
        r $c BGSAVE
        wait_for {[info_field $c rdb_bgsave_in_progress] == 0 && [info_field $c rdb_last_bgsave_status] eq "err"} 10000
        assert_equal $dump [read_bytes [file join $dir dump.rdb]]
        assert_equal {} [glob -nocomplain -directory $dir temp-*]
        assert_error "MISCONF *" {r $c SET k:1 x}
        file delete $filler
        # the save point tries again by itself (after Redis' 5 s delay)
        wait_for {[info_field $c rdb_last_bgsave_status] eq "ok"} 15000
        assert_equal OK [r $c SET k:1 x]
        kill_server $srv
    }
}

finish
