"""The SessionRunHook protocol in detail, as TF1 training frameworks relied on it: begin / after_create_session /
before_run returning SessionRunArgs with fetches (a dict) and a feed_dict / after_run reading run_values.results /
end, the order of the calls recorded, run_context.request_stop from a hook, MonitoredSession.run_step_fn with
step_context.run_with_hooks and session (raw) runs, StopAtStepHook(last_step) with a global step,
SecondOrStepTimer(every_steps) triggering, FinalOpsHook's final value, and should_stop afterwards."""


def main(tf, workdir):
    tf.reset_default_graph()
    calls = []
    gs = tf.train.get_or_create_global_step()
    x = tf.placeholder_with_default(tf.constant(1.0), [])
    v = tf.Variable(0.0, name="acc")
    train = tf.group(tf.assign_add(v, x), tf.assign_add(gs, 1))

    class Recorder(tf.train.SessionRunHook):
        def begin(self):
            calls.append("begin")

        def after_create_session(self, session, coord):
            calls.append(["after_create_session", float(session.run(v))])

        def before_run(self, run_context):
            calls.append("before_run")
            return tf.train.SessionRunArgs({"acc": v, "step": gs}, feed_dict={x: 2.0})

        def after_run(self, run_context, run_values):
            calls.append(["after_run", float(run_values.results["acc"]), int(run_values.results["step"])])
            if run_values.results["step"] >= 4:
                run_context.request_stop()

        def end(self, session):
            calls.append(["end", float(session.run(v))])

    timer = tf.train.SecondOrStepTimer(every_steps=2)
    triggers = []
    for step in range(6):
        if timer.should_trigger_for_step(step):
            timer.update_last_triggered_step(step)
            triggers.append(step)
    final = tf.train.FinalOpsHook(v * 10.0)
    out = {"timer_triggers": triggers}
    with tf.train.MonitoredSession(hooks=[Recorder(), final, tf.train.StopAtStepHook(last_step=10)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    out["calls"] = calls
    out["final"] = float(final.final_ops_values)
    tf.reset_default_graph()
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    inc = tf.assign_add(gs, 1)
    seen = []
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
        while not sess.should_stop():

            def step_fn(step_context):
                value = step_context.session.run(w)  # raw, no hooks
                step = step_context.run_with_hooks(inc)
                return [float(value), int(step)]

            seen.append(sess.run_step_fn(step_fn))
    out["run_step_fn"] = seen
    return out
