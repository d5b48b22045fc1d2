# scripting.tcl -- EVAL/EVALSHA/SCRIPT: conversions both ways (RESP2 and
# RESP3), the sandbox and its errors with line numbers, redis.pcall, the
# shebang flags, ACL inside scripts, -BUSY and SCRIPT KILL, and the effects
# reaching a replica and the AOF. Replies are compared with redis-server's.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

set srv [start_server]
set c [client $srv]
set ref [start_server -binary $::cairn(reference)]
set rc [client $ref]

# Each case: a command whose raw reply must be byte-equal on both servers.
set cases {
    {EVAL "return 1" 0}
    {EVAL "return 3.99" 0}
    {EVAL "return -3.99" 0}
    {EVAL "return 'ciao'" 0}
    {EVAL "return {1,2,3,'ciao',{1,2}}" 0}
    {EVAL "return {1,2,nil,3}" 0}
    {EVAL "return true" 0}
    {EVAL "return false" 0}
    {EVAL "return nil" 0}
    {EVAL "return {ok='FINE'}" 0}
    {EVAL "return {err='My Error'}" 0}
    {EVAL "return redis.status_reply('A\r\nB')" 0}
    {EVAL "return redis.error_reply('My Error')" 0}
    {EVAL "return redis.error_reply('Foo')" 0}
    {EVAL "return {1,{err='x'}}" 0}
    {EVAL "return KEYS[1]..ARGV[1]..#KEYS..#ARGV" 1 k a b}
    {EVAL "redis.call('set', KEYS[1], 'v') return redis.call('get', KEYS[1])" 1 conv1}
    {EVAL "return redis.call('get', 'nosuchkey')" 0}
    {EVAL "return type(redis.call('get', 'nosuchkey'))" 0}
    {EVAL "redis.call('rpush','cl','a','b') return redis.call('lrange','cl',0,-1)" 0}
    {EVAL "return redis.call('ping')" 0}
    {EVAL "return redis.call('incrbyfloat','fl', 1.5)" 0}
    {EVAL "return redis.call('set','n', 10.5) and redis.call('get','n')" 0}
    {EVAL "redis.setresp(3) return redis.call('hgetall','nohash')" 0}
    {EVAL "redis.setresp(3) redis.call('hset','h','f','v') local t = redis.call('hgetall','h') return t.map.f" 0}
    {EVAL "redis.setresp(3) return type(redis.call('get','nosuchkey'))" 0}
    {EVAL "redis.setresp(3) return {double=3.5}" 0}
    {EVAL "redis.setresp(3) return true" 0}
    {EVAL "redis.setresp(3) return false" 0}
    {EVAL "return {double=3.5}" 0}
    {EVAL "return {map={a=1}}" 0}
    {EVAL "return {set={a=true}}" 0}
    {EVAL "return {big_number='123'}" 0}
    {EVAL "return {verbatim_string={format='txt', string='abc'}}" 0}
    {EVAL "x = 1" 0}
    {EVAL "return x" 0}
    {EVAL "return os" 0}
    {EVAL "return io" 0}
    {EVAL "return loadfile" 0}
    {EVAL "return dofile" 0}
    {EVAL "return print" 0}
    {EVAL "setmetatable(_G, nil)" 0}
    {EVAL "_G.x = 1" 0}
    {EVAL "local t = string; t.foo = 1" 0}
    {EVAL "redis.call = nil" 0}
    {EVAL "local a = 1\nlocal b = 2\nerror('on three')" 0}
    {EVAL "error({err='X boom'})" 0}
    {EVAL "syntax error here" 0}
    {EVAL "return redis.call('nosuch')" 0}
    {EVAL "return redis.pcall('nosuch')" 0}
    {EVAL "return redis.call('blpop', 'l', 0)" 0}
    {EVAL "return redis.call('eval', 'return 1', 0)" 0}
    {EVAL "return redis.call()" 0}
    {EVAL "return redis.call(1.5)" 0}
    {EVAL "return redis.call({})" 0}
    {EVAL "return redis.call('set','a')" 0}
    {EVAL "return redis.pcall('set','a')" 0}
    {EVAL "redis.call('set','str','abc') return redis.call('incr','str')" 0}
    {EVAL "redis.call('set','str','abc') return redis.pcall('incr','str')" 0}
    {EVAL "local r = redis.pcall('incr','str') return r.err" 0}
    {EVAL "return redis.breakpoint()" 0}
    {EVAL "return redis.replicate_commands()" 0}
    {EVAL "return redis.REDIS_VERSION_NUM" 0}
    {EVAL "return redis.sha1hex('')" 0}
    {EVAL "return redis.sha1hex()" 0}
    {EVAL "return redis.setresp(4)" 0}
    {EVAL "return redis.set_repl(9)" 0}
    {EVAL "redis.log(9, 'x')" 0}
    {EVAL "return cjson.encode({1,2,'a'})" 0}
    {EVAL "return cjson.decode('[1,2]')[2]" 0}
    {EVAL "return bit.band(7,3)" 0}
    {EVAL "return tostring(1/0)" 0}
    {EVAL "return 1" -1}
    {EVAL "return 1" 2 a}
    {EVAL "return 1" x}
    {EVAL "return 1"}
    {EVALSHA ffffffffffffffffffffffffffffffffffffffff 0}
    {EVALSHA fff 0}
    {EVAL_RO "return redis.call('set','a','b')" 0}
    {EVAL_RO "return redis.call('get','a')" 0}
    {EVAL "#!lua flags=no-writes\nreturn redis.call('set','a','b')" 0}
    {EVAL "#!lua flags=bad\nreturn 1" 0}
    {EVAL "#!lua name=x\nreturn 1" 0}
    {EVAL "#!luax\nreturn 1" 0}
    {EVAL "#!lua\nreturn redis.call('set','a','b')" 0}
    {EVAL_RO "#!lua\nreturn 1" 0}
    {SCRIPT KILL}
    {SCRIPT FLUSH x}
    {SCRIPT EXISTS}
    {SCRIPT LOAD "x="}
    {SCRIPT LOAD "return 1"}
    {SCRIPT FOO}
    {COMMAND INFO eval evalsha eval_ro evalsha_ro script|help script|load script|exists script|flush script|kill script|debug}
    {COMMAND GETKEYS eval "return 1" 2 a b c}
}

test "replies and errors are redis-server's, byte for byte" {
    foreach cmd $cases {
        set cmd [subst -nocommands -novariables $cmd]
        assert_equal [rraw $rc {*}$cmd] [rraw $c {*}$cmd] "reply to $cmd"
    }
}

test "RESP3 callers see RESP3 types, RESP2 conversion of the same scripts" {
    set c3 [client $srv]
    set r3 [client $ref]
    r $c3 HELLO 3
    r $r3 HELLO 3
    foreach s {"return true" "return false" "return nil" "redis.setresp(3) return true"
               "redis.setresp(3) return {map={a=1}}" "return {double=1.5}" "return {big_number='1'}"
               "redis.setresp(3) return redis.call('get','nosuchkey')"
               "return {verbatim_string={format='txt', string='abc'}}"
               "redis.setresp(3) return type(redis.call('client','info').verbatim_string.string)"
               "redis.setresp(3) return {set={a=true}}"} {
        assert_equal [rraw $r3 EVAL $s 0] [rraw $c3 EVAL $s 0] "RESP3 $s"
    }
}

test "EVALSHA runs what EVAL or SCRIPT LOAD cached; SCRIPT EXISTS/FLUSH" {
    r $c SCRIPT FLUSH
    set sha [r $c SCRIPT LOAD {return ARGV[1]}]
    assert_equal [r $rc SCRIPT LOAD {return ARGV[1]}] $sha
    assert_equal hi [r $c EVALSHA $sha 0 hi]
    assert_equal hi [r $c EVALSHA [string toupper $sha] 0 hi]
    assert_equal hi [r $c EVALSHA_RO $sha 0 hi]
    assert_equal {1 0} [r $c SCRIPT EXISTS $sha ffffffffffffffffffffffffffffffffffffffff]
    assert_equal 1 [info_field $c number_of_cached_scripts memory]
    assert_equal OK [r $c SCRIPT FLUSH ASYNC]
    assert_equal {0} [r $c SCRIPT EXISTS $sha]
    assert_equal 0 [info_field $c number_of_cached_scripts memory]
    assert_equal 0 [info_field $c used_memory_scripts_eval memory]
    assert [expr {[info_field $c used_memory_lua memory] > 10000}]
    assert_error "NOSCRIPT No matching script. Please use EVAL." {r $c EVALSHA $sha 0}
    r $c EVAL {return ARGV[1]} 0 x
    assert_equal {1} [r $c SCRIPT EXISTS $sha]
    assert_equal OK [r $c SCRIPT FLUSH SYNC]
}

test "ACL rules of the calling user apply inside the script" {
    r $c ACL SETUSER lua on nopass +eval +get ~a*
    set u [client $srv]
    r $u AUTH lua x
    assert_error "ERR The user executing the script can't run this command or subcommand script: *" \
        {r $u EVAL "return redis.call('set','a','b')" 0}
    assert_error "ERR The user executing the script can't access at least one of the keys mentioned*" \
        {r $u EVAL "return redis.call('get','b')" 0}
    assert_equal {ERR The user executing the script can't run this command or subcommand} \
        [r $u EVAL "return redis.pcall('set','a','b').err" 0]
    assert_match "*context lua*" [r $c ACL LOG 1]
    close_client $u
}

test "a long script makes others wait with -BUSY; SCRIPT KILL ends a read-only one" {
    r $c CONFIG SET busy-reply-threshold 100
    set long [client $srv]
    send_cmd $long EVAL "local i = 0 while true do i = i + 1 end" 0
    set other [client $srv]
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_error "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {r $other GET a}
    assert_error "BUSY Redis is busy running a script.*" {r $other SHUTDOWN}
    assert_equal OK [r $other SCRIPT KILL]
    assert_error "ERR Script killed by user with SCRIPT KILL... script: *" {read_reply $long}
    assert_equal PONG [r $other PING]
    assert_equal PONG [r $long PING]
    assert_error "NOTBUSY No scripts in execution right now." {r $other SCRIPT KILL}
    # One that wrote cannot be killed.
    send_cmd $long EVAL "redis.call('set','w','1') local i = 0 while i < 30000000 do i = i + 1 end return i" 0
    wait_for {[catch {r $other PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    assert_error "UNKILLABLE Sorry the script already executed write commands*" {r $other SCRIPT KILL}
    assert_equal 30000000 [read_reply $long]
    assert_equal 1 [r $other GET w]
    r $c CONFIG SET busy-reply-threshold 5000
    close_client $long
    close_client $other
}

test "a script's writes propagate as effects: bare when one, MULTI/EXEC when more" {
    r $c SELECT 0
    r $c DEBUG PROPAGATED
    r $c EVAL "redis.call('set','p1','a') return redis.call('get','p1')" 0
    set got [r $c DEBUG PROPAGATED]
    assert_match "*set*p1*" $got
    assert_equal 0 [string match *MULTI* $got]
    r $c EVAL "redis.call('set','p1','a') redis.call('incr','p2') return 1" 0
    assert_match "*MULTI*set*p1*incr*p2*EXEC*" [r $c DEBUG PROPAGATED]
    r $c EVAL "return redis.call('get','p1')" 0
    assert_equal "" [r $c DEBUG PROPAGATED]
}

test "SHUTDOWN NOSAVE ends the server under a busy script" {
    set s2 [start_server -config {busy-reply-threshold 50}]
    set l2 [client $s2]
    send_cmd $l2 EVAL "while true do end" 0
    set o2 [client $s2]
    wait_for {[catch {r $o2 PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
    catch {r $o2 SHUTDOWN NOSAVE}
    wait_for {![server_alive $s2]} 5000 "server exit"
}

test "time stands still for a script: a key does not expire half-way" {
    r $c SET soon v PX 50
    set got [r $c EVAL {local a = redis.call('get', KEYS[1]) local t = redis.call('time') local s = tonumber(t[1])
        while tonumber(redis.call('time')[1]) * 1000000 + tonumber(redis.call('time')[2]) < s * 1000000 + tonumber(t[2]) + 150000 do end
        return {a, redis.call('get', KEYS[1]), redis.call('exists', KEYS[1])}} 1 soon]
    assert_equal {v v 1} $got
    assert_equal 0 [r $c EXISTS soon]
}

test "MONITOR shows the EVAL first, then its commands from 'lua'" {
    set m [client $srv]
    assert_equal OK [r $m MONITOR]
    r $c EVAL "redis.call('set','mon','1') return 1" 0
    assert_match {*"EVAL" "redis.call('set','mon','1') return 1" "0"} [read_reply $m]
    assert_match {* lua\] "set" "mon" "1"} [read_reply $m]
    close_client $m
}

test "EVAL inside MULTI: its writes are part of the transaction's MULTI/EXEC" {
    r $c DEBUG PROPAGATED
    r $c MULTI
    r $c SET m1 a
    r $c EVAL "redis.call('set','m2','b') redis.call('set','m3','c')" 0
    assert_equal {OK {}} [r $c EXEC]
    set got [r $c DEBUG PROPAGATED]
    assert_match "*MULTI*SET*m1*set*m2*set*m3*EXEC*" $got
    assert_equal 1 [regexp -all MULTI $got]
}

test "a replica and the AOF get the script's effects" {
    set m [start_server -config {appendonly yes}]
    set mc [client $m]
    set rep [start_server]
    set repc [client $rep]
    repl_attach $repc $m
    r $mc EVAL {for i=1,10 do redis.call('rpush', KEYS[1], i) end redis.call('set', KEYS[2], tostring(redis.call('llen', KEYS[1])))} 2 l n
    r $mc EVAL "return redis.call('incrbyfloat', 'f', '0.1')" 0
    r $mc EVAL "redis.call('set','t',math.random()) return 1" 0
    repl_wait_caught_up $mc $repc
    repl_same_data $mc $repc
    set digest [r $mc DEBUG DIGEST]
    restart_server $m
    set mc [client $m]
    assert_equal $digest [r $mc DEBUG DIGEST]
    assert_equal 10 [r $mc GET n]
}

test "a command refused inside a script counts in rejected_calls, errors count once (both servers)" {
    foreach conn [list $c $rc] {
        r $conn CONFIG RESETSTAT
        assert_error "*Write commands are not allowed from read-only scripts*" {r $conn EVAL_RO {return redis.call('set','x','y')} 1 x}
        assert_match "*cmdstat_set:calls=0,*rejected_calls=1,failed_calls=0*" [r $conn INFO commandstats]
        assert_match "*cmdstat_eval_ro:calls=1,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
        assert_equal 1 [info_field $conn total_error_replies stats] "counted once, not again as the script's error"
        assert_match "*errorstat_ERR:count=1*" [r $conn INFO errorstats]
        # a refusal redis.pcall catches counts too, the script did not fail
        r $conn EVAL_RO {redis.pcall('set','x','y') return 1} 1 x
        assert_match "*cmdstat_set:calls=0,*rejected_calls=2,*" [r $conn INFO commandstats]
        assert_match "*cmdstat_eval_ro:calls=2,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
        assert_equal 2 [info_field $conn total_error_replies stats]
        # a command's own error raised through the script: once too
        r $conn CONFIG RESETSTAT
        assert_error "ERR DB index is out of range*" {r $conn EVAL {return redis.call('select',99)} 0}
        assert_equal 1 [info_field $conn total_error_replies stats]
        assert_match "*cmdstat_select:calls=1,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
        assert_match "*cmdstat_eval:calls=1,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
        # returned by pcall as the script's reply: the script failed, the error counts once
        r $conn CONFIG RESETSTAT
        assert_error "ERR DB index is out of range*" {r $conn EVAL {return redis.pcall('select',99)} 0}
        assert_equal 1 [info_field $conn total_error_replies stats]
        assert_match "*cmdstat_eval:calls=1,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
        # an error made in Lua counts as the script's
        r $conn CONFIG RESETSTAT
        assert_error "MY_CODE x*" {r $conn EVAL {return redis.error_reply('MY_CODE x')} 0}
        assert_match "*errorstat_MY_CODE:count=1*" [r $conn INFO errorstats]
        assert_match "*cmdstat_eval:calls=1,*rejected_calls=0,failed_calls=1*" [r $conn INFO commandstats]
    }
}

test "SCRIPT FLUSH ASYNC hands the old state to the lazy-free thread; SYNC frees it at once (both servers)" {
    foreach conn [list $c $rc] {
        r $conn SCRIPT FLUSH SYNC
        for {set i 0} {$i < 100} {incr i} { r $conn SCRIPT LOAD "return $i" }
        assert_equal 100 [info_field $conn number_of_cached_scripts memory]
        assert {[info_field $conn used_memory_scripts_eval memory] > 100 * 40}
        r $conn CONFIG RESETSTAT
        assert_equal OK [r $conn SCRIPT FLUSH ASYNC]
        wait_for {[info_field $conn lazyfreed_objects memory] == 100} 5000 "lazyfreed_objects"
        assert_equal 0 [info_field $conn number_of_cached_scripts memory]
        assert_equal 0 [info_field $conn used_memory_scripts_eval memory]
        for {set i 0} {$i < 100} {incr i} { r $conn SCRIPT LOAD "return $i" }
        assert_equal OK [r $conn SCRIPT FLUSH SYNC]
        assert_equal 100 [info_field $conn lazyfreed_objects memory]
        # no argument: lazyfree-lazy-user-flush decides
        r $conn CONFIG SET lazyfree-lazy-user-flush yes
        for {set i 0} {$i < 100} {incr i} { r $conn SCRIPT LOAD "return $i" }
        assert_equal OK [r $conn SCRIPT FLUSH]
        wait_for {[info_field $conn lazyfreed_objects memory] == 200} 5000 "lazyfreed_objects"
        r $conn CONFIG SET lazyfree-lazy-user-flush no
        for {set i 0} {$i < 100} {incr i} { r $conn SCRIPT LOAD "return $i" }
        assert_equal OK [r $conn SCRIPT FLUSH]
        assert_equal 200 [info_field $conn lazyfreed_objects memory]
        assert_equal 1 [r $conn EVAL "return 1" 0] "the new state runs scripts"
    }
}

# A primary and a replica of the given binary.
proc script_pair {bin} {
    set p [start_server -binary $bin -config {repl-diskless-sync-delay 0}]
    set s [start_server -binary $bin]
    set sc [client $s]
    repl_attach $sc $p
    return [list $p $s [client $p] $sc]
}

test "a script that wrote keeps writing when the replicas drop under min-replicas-to-write (both servers)" {
    foreach bin [list $::cairn(server) $::cairn(reference)] {
        lassign [script_pair $bin] p s pc sc
        repl_wait_online $pc 1
        r $pc CONFIG SET min-replicas-to-write 1
        r $pc CONFIG SET busy-reply-threshold 10
        set long [client $p]
        send_cmd $long EVAL {redis.call('set','x','before')
            while not string.match(redis.call('info','replication'), 'connected_slaves:0') do end
            return redis.call('set','x','after')} 0
        wait_for {[catch {r $pc PING} e] && [string match BUSY* $e]} 5000 "BUSY reply"
        kill_server $s
        assert_equal OK [read_reply $long]
        r $pc CONFIG SET min-replicas-to-write 0
        assert_equal after [r $pc GET x]
        # a script that has not written yet is refused at its first write
        r $pc CONFIG SET min-replicas-to-write 1
        assert_error "NOREPLICAS *" {r $pc EVAL {return redis.call('set','x','y')} 0}
        kill_server $p
    }
}

test "EXEC of a queued shebang script without no-writes is refused on a read-only replica (both servers)" {
    foreach bin [list $::cairn(server) $::cairn(reference)] {
        lassign [script_pair $bin] p s pc sc
        r $sc REPLICAOF NO ONE
        r $sc SET x 1
        set a [client $s]
        set b [client $s]
        r $a MULTI
        r $a EVAL "#!lua\nreturn 1" 0
        r $b MULTI
        r $b EVAL {redis.call('set','x',2) return 1} 0
        repl_attach $sc $p
        assert_error "EXECABORT Transaction discarded because of: READONLY *" {r $a EXEC}
        # no shebang: EVAL is no write command itself, its SET is refused inside
        assert_match "*READONLY You can't write against a read only replica. script: *" [rraw $b EXEC]
        kill_server $s
        kill_server $p
    }
}

# The script's command cache once kept OBJECT HELP under the name OBJECT, so
# OBJECT IDLETIME without a key passed HELP's arity check and crashed the
# server (found by cmdfuzz's FCALL mode).
test "a subcommand a script called before does not answer for its siblings" {
    foreach {cmd sub} {OBJECT IDLETIME CONFIG GET CLIENT KILL} {
        set script "redis.pcall('$cmd','HELP') return redis.pcall('$cmd','$sub')"
        assert_equal [rraw $rc EVAL $script 0] [rraw $c EVAL $script 0] "$cmd $sub"
    }
    assert_equal PONG [r $c PING]
}

finish
