"""Recurrent layers' while loops in a frozen graph, each made one `_TwlRnn` node.

A recurrent layer over a run-time sequence length runs a while loop: a Keras LSTM, GRU or SimpleRNN a TF2 loop
over TensorLists (frozen by convert_variables_to_constants_v2, TF1 control flow), TF1's and tensorweave's
`dynamic_rnn` a TF1 loop over TensorArrays; in both, per loop variable an Enter, Merge, Switch, NextIteration
and Exit in one frame. The lite runtime and ONNX have no loops but do have LSTM, GRU and RNN operators (ONNX's
semantics; core/ops/converter_ops.cc's `_TwlRnn` stands for them in the graph).

`fuse_rnn_loops` takes a loop when it has a layer's shape: one input sequence read at the step index (a
TensorList unstacked, or a TensorArray scattered, before the loop), at most one output written at the step
index (return_sequences, a TensorArray stacked after the loop) or at 0 (the last output), one or two float
states, step counters, and bounds equal to the sequence length. Its weights are read off the loop body by
running the body alone (in TensorFlow, or in the core for tensorweave's graphs): a cell's gate pre-activations
z are affine in the step's input x and the state h, so with z(x, h) evaluated on rows of zeros and unit
vectors, b = z(0, 0), W = z(I, 0) - b and R = z(0, I) - b. The cell's equations are then checked on random
values before the loop is replaced: Keras' LSTM (gates i, f, c, o), TF1's LSTMCell and BasicLSTMCell (i, j, f,
o, any forget_bias), Keras' GRU (reset_after, or reset before the product as TF1's GRUCell), SimpleRNN and
BasicRNNCell, each with the gate activation sigmoid, tanh, relu or a hard sigmoid (Keras 2's
clip(0.2 x + 0.5, 0, 1), TF1 tf.keras' default recurrent_activation, or Keras 3's relu6(x + 3) / 6) and the
cell activation any of those (ONNX's activations f and g). Cells stacked in one step (MultiRNNCell, or layers
written out in a while_loop) become one operator each, the one above reading the sequence of the one below.
TF1's dynamic_rnn(sequence_length=) selects, per sequence, the previous states and zeros past its length
(Select(time >= length, ...)) and bounds the steps by the longest length: ONNX's sequence_lens, the lengths
clamped to [0, steps] as TF1 reads them, and a length of 0 given its initial states back (ONNX gives zeros).
Another activation, a Keras mask (not a prefix of each sequence) or peepholes fail the check; such a loop is
left as it is, with the reason, for the caller's error.
"""

import copy
import itertools

import numpy as np

from converters.graph_util import parse_input

_CONTROL_FLOW = frozenset({"Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"})
_READS = ("TensorListGetItem", "TensorArrayReadV3")  # the step's input (TF2's TensorList, TF1's TensorArray)
_WRITES = ("TensorListSetItem", "TensorArrayWriteV3")
# Per kind: gates, states.
_KINDS = {"LSTM": (4, 2), "GRU": (3, 1), "RNN": (1, 1)}


class NotARecurrentLayer(Exception):
    """The loop is not a recurrent layer this module can replace (the message says why)."""


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _hard_sigmoid(alpha, beta):
    return lambda v: np.clip(alpha * v + beta, 0.0, 1.0)


# Activations as _TwlRnn names them (ONNX's): (name, alpha, beta (None: no parameters), function). The defaults
# first in each list, relu last: a hard sigmoid's body also holds alpha z + beta, on which relu agrees with the
# hard sigmoid wherever it is below 1 (every fit tries each pair of activations on every tensor of the body
# before the next pair).
_SIGMOID = ("Sigmoid", None, None, _sigmoid)
_TANH = ("Tanh", None, None, np.tanh)
_RELU = ("Relu", None, None, lambda v: np.maximum(v, 0.0))
_HARD_SIGMOIDS = [("HardSigmoid", a, 0.5, _hard_sigmoid(a, 0.5)) for a in (0.2, 1.0 / 6.0)]  # Keras 2, Keras 3
_GATE_ACTIVATIONS = [_SIGMOID] + _HARD_SIGMOIDS + [_TANH, _RELU]
_CELL_ACTIVATIONS = [_TANH, _SIGMOID] + _HARD_SIGMOIDS + [_RELU]


def _activation_pairs(gates=True):
    """[(gate activation, cell activation)] to try, the defaults first; a pair's hard sigmoids share alpha and
    beta (one pair per operator). Without gates (an RNN): the gate is sigmoid (unused)."""
    pairs = []
    for f in _GATE_ACTIVATIONS if gates else [_SIGMOID]:
        for g in _CELL_ACTIVATIONS:
            if f[1] is None or g[1] is None or f[1:3] == g[1:3]:
                pairs.append((f, g))
    return pairs


def _attributes(f, g):
    """_TwlRnn's activation attributes of gate activation `f` and cell activation `g`."""
    alpha, beta = next(((a[1], a[2]) for a in (f, g) if a[1] is not None), (0.2, 0.5))
    return {"gate_activation": f[0], "activation": g[0], "activation_alpha": alpha, "activation_beta": beta}


class _Var:
    """One loop variable: its initial value, the value the body gives it, where the body reads it, its Exit."""

    def __init__(self, merge):
        self.merge, self.init, self.next, self.switch, self.exit = merge, None, None, None, None
        self.body_in = []  # the Identity nodes through which the body reads it


class _Loop:
    def __init__(self, frame, nodes, variables, loop_cond):
        self.frame, self.nodes, self.vars, self.loop_cond = frame, nodes, variables, loop_cond


class _Graph:
    """The frozen GraphDef with consumers, by node name."""

    def __init__(self, graph_def):
        self.graph_def = graph_def
        self.nodes = {n.name: n for n in graph_def.node}
        self.consumers = {}
        for n in graph_def.node:
            for i in n.input:
                self.consumers.setdefault(parse_input(i.lstrip("^"))[0], []).append(n)

    def node(self, tensor):
        return self.nodes.get(parse_input(tensor.lstrip("^"))[0])

    def through_identities(self, tensor):
        """`tensor` past any Identity nodes that produce it."""
        node = self.node(tensor)
        while node is not None and node.op == "Identity":
            tensor = node.input[0]
            node = self.node(tensor)
        return tensor


def _loops(g):
    """The while loops of the graph, each with its variables."""
    frames = {}
    for n in g.graph_def.node:
        if n.op == "Enter":
            frames.setdefault(n.attr["frame_name"].s.decode(), []).append(n)
    loops = []
    for frame, enters in frames.items():
        nodes, todo = set(), [e.name for e in enters]
        while todo:  # forward from the Enters, stopping at the Exits
            name = todo.pop()
            if name in nodes:
                continue
            nodes.add(name)
            if g.nodes[name].op != "Exit":
                todo.extend(c.name for c in g.consumers.get(name, []))
        if any(g.nodes[n].op == "Enter" and g.nodes[n].attr["frame_name"].s.decode() != frame for n in nodes):
            continue  # (a nested loop: not a Keras layer's)
        variables, loop_cond = [], None
        for name in nodes:
            node = g.nodes[name]
            if node.op == "LoopCond":
                loop_cond = node
            if node.op != "Merge":
                continue
            var = _Var(node)
            for i in node.input:
                source = g.node(i)
                if source is None:
                    continue
                if source.op == "Enter":
                    var.init = source.input[0]
                elif source.op == "NextIteration":
                    var.next = g.through_identities(source.input[0])
            for c in g.consumers.get(name, []):
                if c.op == "Switch":
                    var.switch = c
            if var.init is None or var.next is None or var.switch is None:
                continue
            for c in g.consumers.get(var.switch.name, []):
                uses = [parse_input(i)[1] for i in c.input if parse_input(i)[0] == var.switch.name]
                if c.op == "Exit":
                    var.exit = c
                elif 1 in uses:
                    var.body_in.append(c)
            variables.append(var)
        loops.append(_Loop(frame, nodes, variables, loop_cond))
    return loops


class _Layer:
    """What a loop was found to be: its variables by role, the input sequence, the step's read and write."""

    def __init__(self, g, loop, tf, shapes, live):
        self.g, self.loop, self.tf, self.shapes = g, loop, tf, shapes
        reads = [g.nodes[n] for n in loop.nodes if g.nodes[n].op in _READS]
        writes = [g.nodes[n] for n in loop.nodes if g.nodes[n].op in _WRITES]
        if len(reads) != 1 or len(writes) > 1:
            raise NotARecurrentLayer(
                f"it reads {len(reads)} and writes {len(writes)} lists per step (a layer: 1 and 1)"
            )
        self.read, self.write = reads[0], (writes[0] if writes else None)  # (none: only the final state is used)
        self.arrays = self.read.op == "TensorArrayReadV3"  # (TF1's dynamic_rnn; else TF2's TensorLists)
        by_switch = {v.switch.name: v for v in loop.vars}

        def var_of(tensor):
            """The variable whose value in the body `tensor` is, or None."""
            name, index = parse_input(g.through_identities(tensor))
            return by_switch.get(name) if index == 1 else None

        def const(tensor):
            node = g.node(g.through_identities(tensor))
            return tf.make_ndarray(node.attr["value"].tensor) if node is not None and node.op == "Const" else None

        self.var_of, self.const = var_of, const
        if self.arrays:  # read(handle, index, flow): the flow of a scatter of the whole sequence
            source = g.node(self.outside(self.read.input[2]))
            if source is None or source.op != "TensorArrayScatterV3" or not self._is_all_steps(source.input[1]):
                raise NotARecurrentLayer("the TensorArray it reads is not a sequence unstacked before the loop")
            self.sequence = source.input[2]
            self.out = var_of(self.write.input[3]) if self.write is not None else None
        else:
            source_var = var_of(self.read.input[0])
            source = g.node(g.through_identities(source_var.init)) if source_var is not None else None
            if source is None or source.op != "TensorListFromTensor":
                raise NotARecurrentLayer("the list it reads is not a sequence unstacked before the loop")
            self.sequence = source.input[0]  # [T, N, I]
            self.out = var_of(self.write.input[0]) if self.write is not None else None
        self.time = var_of(self.read.input[1])
        if self.time is None or (self.write is not None and self.out is None) or const(self.time.init) != 0:
            raise NotARecurrentLayer("it does not read the sequence at a step index from 0")
        index = self.write.input[1] if self.write is not None else None
        if self.write is None:
            self.all_steps = False
        elif var_of(index) is self.time:
            self.all_steps = True
        elif const(index) is not None and int(const(index)) == 0:
            self.all_steps = False  # (return_sequences=False: the step's output overwrites element 0)
        else:
            raise NotARecurrentLayer("it writes its output list neither at the step index nor at 0")
        self.counters, self.passed, self.states = [], [], []
        for var in loop.vars:
            if var is self.out:
                continue
            if var_of(var.next) is var:
                self.passed.append(var)
            elif self._is_counter(var):
                self.counters.append(var)
            else:
                self.states.append(var)
        # A state that carries another's value (Keras' last output beside h): of two with the same new value the
        # step reads one (kept) and the other is an alias, whose Exit is the kept one's.
        read = self._reached([v.next for v in self.states], set())[0]
        self.aliases, kept = [], []
        for var in sorted(self.states, key=lambda v: id(v) not in read):
            twin = next((u for u in kept if u.next == var.next), None)
            if twin is None:
                kept.append(var)
            elif id(var) in read:
                raise NotARecurrentLayer("its step reads two variables that it gives one value")
            else:
                self.aliases.append((var, twin))
        self.states = [v for v in self.states if any(v is u for u in kept)]
        self.bounding_lengths = set()
        self._check_bounds()
        for var in self.counters + self.passed:
            if var.exit is not None and var.exit.name in live:
                raise NotARecurrentLayer("a loop counter is used after the loop")
        self.input_tensor, self.input_size = None, None  # (a stacked cell's: its input, the one below's output)
        self._find_lengths()

    def _find_lengths(self):
        """TF1's dynamic_rnn(sequence_length=): the step's new states and output are Select(time >= lengths, the
        previous state or zeros, the cell's value) (ONNX's sequence_lens). Sets `lengths` (the tensor before the
        loop, or None), `copies` ({Select name: node}) and `zero_inputs` (the Enters of the zeros)."""
        g = self.g
        self.lengths, self.copies, self.zero_inputs, self.lengths_enters = None, {}, set(), set()
        conds = {}
        for name in self.loop.nodes:
            node = g.nodes[name]
            if node.op == "GreaterEqual" and self.var_of(node.input[0]) is self.time:
                conds[name] = node
        for name in self.loop.nodes:
            node = g.nodes[name]
            if node.op in ("Select", "SelectV2") and parse_input(g.through_identities(node.input[0]))[0] in conds:
                self.copies[name] = node
        if not conds:
            if self.bounding_lengths:
                raise NotARecurrentLayer("its steps are bounded by the longest of lengths it does not select by")
            return
        lengths = {self.outside(c.input[1]) for c in conds.values()} | self.bounding_lengths
        if len(lengths) != 1 or not self.copies:
            raise NotARecurrentLayer("it compares the step index with sequence lengths it does not select by")
        self.lengths = lengths.pop()
        self.lengths_enters = {parse_input(g.through_identities(c.input[1]))[0] for c in conds.values()}
        states = {id(v) for v in self.states}
        for select in self.copies.values():
            kept = select.input[1]
            var = self.var_of(kept)
            if var is not None and id(var) in states:
                continue
            if not self._is_zeros(self.outside(kept)):
                raise NotARecurrentLayer(
                    f"past a sequence's length its Select {select.name} keeps neither a state nor zeros"
                )
            self.zero_inputs.add(parse_input(self.g.through_identities(kept))[0])

    def _is_zeros(self, tensor):
        """Whether `tensor` is zeros: a Fill of a constant 0 or a constant of zeros."""
        node = self.g.node(tensor)
        if node is not None and node.op == "Fill":
            value = self.const(node.input[1])
            return value is not None and not np.any(value)
        value = self.const(tensor)
        return value is not None and not np.any(value)

    def computed(self, tensor):
        """The cell's value that `tensor` selects past a sequence's length (`tensor` itself when it is not such a
        Select)."""
        select = self.copies.get(parse_input(self.g.through_identities(tensor))[0])
        return self.g.through_identities(select.input[2]) if select is not None else tensor

    def cells(self):
        """The stacked cells of the step (MultiRNNCell: one per layer), bottom first: [(states, input tensor)],
        the input None for the bottom cell (it reads the sequence), else the output of the cell below. A cell is
        the states whose new values read each other (an LSTM's c and h); a cell above reads only its own states
        and one tensor of the cell below."""
        reach = {id(v): self._reached([v.next], set())[0] for v in self.states}
        groups = []
        for v in self.states:
            group = [u for u in self.states if id(u) in reach[id(v)] and id(v) in reach[id(u)]] or [v]
            if not any(group == g for g in groups):
                groups.append(group)
        below = {}
        for group in groups:
            below[id(group[0])] = {id(u) for v in group for u in self.states if id(u) in reach[id(v)]} - {
                id(u) for u in group
            }
        groups.sort(key=lambda group: len(below[id(group[0])]))
        cells, earlier = [], []
        for group in groups:
            stops = {v.next for v in earlier} | {self.computed(v.next) for v in earlier}
            states, hit, reads_x = self._reached([v.next for v in group], stops)
            if not earlier:
                if not reads_x:
                    raise NotARecurrentLayer("no cell of its step reads the sequence")
                cells.append((group, None))
            elif reads_x or len(hit) != 1 or states - {id(v) for v in group + earlier}:
                raise NotARecurrentLayer("its stacked cells do not each read only the output of the one below")
            else:
                cells.append((group, hit.pop()))
            earlier += group
        return cells

    def _reached(self, tensors, stops):
        """(ids of the states, tensors of `stops`, whether the step's input) that `tensors` read in the body."""
        states, hit, reads_x = set(), set(), False
        by_switch = {v.switch.name: v for v in self.states}
        by_body_in = {b.name: v for v in self.states for b in v.body_in}
        todo, seen = list(tensors), set()
        while todo:
            tensor = todo.pop()
            if tensor in stops:
                hit.add(tensor)
                continue
            name, index = parse_input(tensor)
            if name in seen or name not in self.loop.nodes:
                continue
            seen.add(name)
            var = by_body_in.get(name) or (by_switch.get(name) if index == 1 else None)
            if var is not None:
                states.add(id(var))
                continue
            if name == self.read.name:
                reads_x = True
                continue
            node = self.g.nodes[name]
            if node.op not in _CONTROL_FLOW:
                todo.extend(i for i in node.input if not i.startswith("^"))
        return states, hit, reads_x

    def outside(self, tensor):
        """`tensor` past Identity nodes and a loop-invariant Enter: the value computed before the loop."""
        tensor = self.g.through_identities(tensor)
        node = self.g.node(tensor)
        if node is not None and node.op == "Enter" and node.attr["is_constant"].b:
            tensor = self.g.through_identities(node.input[0])
        return tensor

    def _is_all_steps(self, indices):
        """Whether `indices` is Range(0, the sequence's length, 1) (the rows a TensorArray scatters or gathers)."""
        node = self.g.node(self.outside(indices))
        if node is None or node.op != "Range":
            return False
        start, delta = self.folded(node.input[0]), self.folded(node.input[2])
        return start is not None and int(start) == 0 and delta is not None and int(delta) == 1

    def sizing(self):
        """The tensors whose shapes give the input and state sizes: the sequence, each state's initial value."""
        return [self.sequence] + [v.init for v in self.states]

    def _static_sizes(self):
        """The static shapes of sizing()'s tensors when they give the sizes, else None."""
        static = [self.tf_shape(t) for t in self.sizing()]
        if static[0] is None or len(static[0]) != 3 or static[0][2] is None:
            return None
        return None if any(s is None or not s or s[-1] is None for s in static[1:]) else static

    def _sizes(self, sess, graph, feeds):
        """(input size, state size): static where shape inference has them, else from the sequence and initial
        states computed on zeros fed for the model's inputs (their unknown dims 2)."""
        static = self._static_sizes()
        if static is not None and self.input_size is not None:
            static[0] = [None, None, self.input_size]
        if static is None:
            try:
                values = sess.run([graph.get_tensor_by_name(t if ":" in t else t + ":0") for t in self.sizing()], feeds)
            except Exception as e:  # noqa: BLE001 - the evaluator's errors
                raise NotARecurrentLayer(f"its sequence's shape is not known ({type(e).__name__}: {e})") from None
            static = [list(np.shape(v)) for v in values]
            if self.input_size is not None:
                static[0] = [None, None, self.input_size]
        if len(static[0]) > 3:
            raise NotARecurrentLayer(
                f"its sequence has shape {static[0]}: each step reads a tensor of rank {len(static[0]) - 1}, not a "
                "batch of vectors (a ConvLSTM's convolutional cell is not an LSTM, GRU or RNN operator)"
            )
        if len(static[0]) != 3 or len({s[-1] for s in static[1:]}) != 1:
            raise NotARecurrentLayer(f"its sequence has shape {static[0]} and its states {static[1:]}")
        return static[0][2], static[1][-1]

    def output(self):
        """[the tensor the step writes to its output list], or [] when it writes none."""
        return [self.write.input[2]] if self.write is not None else []

    def gathers_all(self, gather):
        """Whether TensorArrayGatherV3 `gather` reads every step (TF1's TensorArray.stack())."""
        return self._is_all_steps(gather.input[1])

    def _is_counter(self, var):
        node = self.g.node(var.next)
        if node is None or node.op not in ("AddV2", "Add") or self.const(var.init) is None:
            return False
        steps = [self.const(i) for i in node.input[:2]]
        return any(self.var_of(i) is var for i in node.input[:2]) and any(s is not None and int(s) == 1 for s in steps)

    def _check_bounds(self):
        """The loop runs while each counter is less than the sequence length (Keras' loop: the step index below
        the length, and maximum_iterations the length)."""
        g = self.g
        if self.loop.loop_cond is None:
            raise NotARecurrentLayer("it has no LoopCond")
        cond = g.node(g.through_identities(self.loop.loop_cond.input[0]))
        todo, compared = [cond], []
        while todo:
            node = todo.pop()
            if node is not None and node.op == "LogicalAnd":
                todo.extend(g.node(g.through_identities(i)) for i in node.input[:2])
            elif node is not None and node.op == "Less":
                compared.append(node)
            else:
                raise NotARecurrentLayer(f"its condition has a {node.op if node else 'missing'} node")
        merges = {v.merge.name: v for v in self.loop.vars}
        for less in compared:
            counter = merges.get(parse_input(g.through_identities(less.input[0]))[0])
            bound = self.outside(less.input[1])
            bound_var = merges.get(parse_input(bound)[0])
            if bound_var is not None:
                bound = self.outside(bound_var.init)
            if counter is None or counter not in self.counters + [self.time] or not self._is_length(bound):
                raise NotARecurrentLayer("its condition is not a step index below the sequence length")

    def _is_length(self, tensor):
        """Whether `tensor` is the sequence's length: dim 0 of its Shape, or a constant equal to it."""
        g = self.g
        node = g.node(self.outside(tensor))
        if node is not None and node.op == "Minimum":  # (TF's dynamic_rnn: min(T, max(1, T)))
            a, b = (self.outside(i) for i in node.input[:2])
            return any(
                self._is_length(u) and (self._is_length(v) or self._at_least_one(v)) for u, v in [(a, b), (b, a)]
            )
        if node is not None and node.op == "StridedSlice":
            shape_node = g.node(g.through_identities(node.input[0]))
            begin, end = self.const(node.input[1]), self.const(node.input[2])
            sequence, same_length = g.through_identities(self.sequence), set()
            while g.node(sequence) is not None:  # (go_backwards: the loop reads the sequence reversed)
                same_length.add(sequence)
                if g.node(sequence).op != "ReverseV2":
                    break
                sequence = g.through_identities(g.node(sequence).input[0])
            return (
                shape_node is not None
                and shape_node.op == "Shape"
                and g.through_identities(shape_node.input[0]) in same_length
                and begin is not None
                and list(np.reshape(begin, -1)) == [0]
                and list(np.reshape(end, -1)) == [1]
            )
        value = self.folded(tensor)
        steps = (self.tf_shape(self.sequence) or [None])[0]
        return value is not None and steps is not None and int(value) == steps

    def _at_least_one(self, tensor):
        """Whether `tensor` is Maximum(c, the sequence's length) with a constant c <= 1, or Maximum(c, Max(the
        sequence lengths)) (TF1's dynamic_rnn(sequence_length=): the lengths are checked by _find_lengths)."""
        node = self.g.node(self.outside(tensor))
        if node is None or node.op != "Maximum":
            return False
        a, b = node.input[:2]
        return any(
            self.folded(u) is not None and float(self.folded(u)) <= 1 and (self._is_length(v) or self._longest(v))
            for u, v in [(a, b), (b, a)]
        )

    def _longest(self, tensor):
        """Whether `tensor` is Max over axis 0 of a vector (the longest sequence length), noted in
        `bounding_lengths`."""
        node = self.g.node(self.outside(tensor))
        if node is None or node.op != "Max" or (self.tf_shape(node.input[0]) or [None, None])[1:] != []:
            return False
        axes = self.const(node.input[1])
        if axes is None or list(np.reshape(axes, -1)) not in ([0], [-1]):
            return False
        self.bounding_lengths.add(self.outside(node.input[0]))
        return True

    def folded(self, tensor):
        """The value of `tensor` when constants make it (Keras 3 bounds its loop by Max(lengths, Range(...))), or
        None."""
        node = self.g.node(self.g.through_identities(tensor))
        if node is None:
            return None
        if node.op == "Const":
            return self.const(node.name)
        if node.op not in ("Range", "Max", "Min"):  # (nothing else folds; a loop's values would cycle)
            return None
        inputs = [self.folded(i) for i in node.input if not i.startswith("^")]
        if any(v is None for v in inputs):
            return None
        if node.op == "Range" and len(inputs) == 3:
            return np.arange(*[v.item() for v in inputs])
        if node.op in ("Max", "Min") and len(inputs) == 2:
            return (np.max if node.op == "Max" else np.min)(inputs[0], axis=tuple(np.reshape(inputs[1], -1)))
        return None

    def tf_shape(self, tensor):
        """TensorFlow's static shape of `tensor`: a list with None for unknown dims, or None."""
        return self.shapes(tensor)

    # --- the body, run in TensorFlow --------------------------------------------------------------------------
    def body_function(self):
        """The step's computation as a TensorFlow graph: the nodes that the new states and the step's output need,
        reading placeholders `twl_probe/x` (the step's input) and `twl_probe/state_<k>`, each loop-invariant
        variable's initial value, and 0 for the counters."""
        tf, g = self.tf, self.g
        v1 = tf.compat.v1
        # The body's reads of the step's input and the variables (a stacked cell's input: the cell below's output).
        value_of = {parse_input(self.input_tensor)[0] if self.input_tensor else self.read.name: "twl_probe/x"}
        for var in self.loop.vars:
            if any(var is u for u in self.states):
                value_of[var.switch.name] = f"twl_probe/state_{[id(u) for u in self.states].index(id(var))}"
            elif var in self.passed:
                value_of[var.switch.name] = var.init
            elif var is not self.out and all(var is not alias for alias, _ in self.aliases):
                value_of[var.switch.name] = "twl_probe/zero"
            for b in var.body_in:
                value_of[b.name] = value_of.get(var.switch.name)
        for name in self.loop.nodes:  # (a loop invariant the body captures, as backend.rnn's cell weights)
            node = g.nodes[name]
            if node.op == "Enter" and node.attr["is_constant"].b:
                value_of[name] = node.input[0]
        for name in self.lengths_enters:  # (fed: past every length, or at none)
            value_of[name] = "twl_probe/lengths"
        for name in self.zero_inputs:  # (zeros of the probes' batch instead, below)
            value_of[name] = "twl_probe/zero"
        # (The sequence and the initial states too when shape inference left their sizes unknown.)
        needed, todo = set(), [v.next for v in self.states] + self.output()
        if self._static_sizes() is None:
            todo += self.sizing()
        while todo:
            name = parse_input(todo.pop())[0]
            if name in value_of:
                if value_of[name] is not None and not value_of[name].startswith("twl_probe/"):
                    todo.append(value_of[name])  # (a loop invariant: computed outside)
                continue
            if name in needed:
                continue
            node = g.nodes[name]
            inside = name in self.loop.nodes
            if inside and (node.op in _CONTROL_FLOW or node.op.startswith("TensorList")):
                raise NotARecurrentLayer(f"its step computes with a {node.op} ({name})")
            needed.add(name)
            todo.extend(i for i in node.input if not (inside and i.startswith("^")))
        graph_def = v1.GraphDef()
        for node in g.graph_def.node:
            if node.name not in needed:
                continue
            copy = graph_def.node.add()
            copy.CopyFrom(node)
            inputs = []
            for i in node.input:
                if i.startswith("^") and node.name in self.loop.nodes:
                    continue  # (the body's control edges come from the loop's plumbing)
                name, index = parse_input(i)
                if name in value_of and (g.nodes[name].op != "Switch" or index == 1):
                    if value_of[name] is None:
                        raise NotARecurrentLayer(f"its step reads a loop variable it does not compute ({node.name})")
                    inputs.append(value_of[name])
                else:
                    inputs.append(i)
            if node.name in self.copies and parse_input(g.through_identities(node.input[1]))[0] in self.zero_inputs:
                zeros = graph_def.node.add(name=f"{node.name}/twl_zeros", op="ZerosLike", input=[inputs[2]])
                zeros.attr["T"].type = tf.float32.as_datatype_enum
                inputs[1] = zeros.name
            copy.input[:] = inputs
        for name in ["twl_probe/x"] + [f"twl_probe/state_{k}" for k in range(len(self.states))]:
            node = graph_def.node.add(name=name, op="Placeholder")
            node.attr["dtype"].type = tf.float32.as_datatype_enum
        if self.lengths is not None:
            node = graph_def.node.add(name="twl_probe/lengths", op="Placeholder")
            node.attr["dtype"].type = tf.int32.as_datatype_enum
        zero = graph_def.node.add(name="twl_probe/zero", op="Const")
        zero.attr["dtype"].type = tf.int32.as_datatype_enum
        zero.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(0, tf.int32))
        graph = tf.Graph()
        with graph.as_default():
            try:
                tf.graph_util.import_graph_def(graph_def, name="")
            except Exception as e:  # noqa: BLE001 - TensorFlow's errors
                raise NotARecurrentLayer(
                    f"its step does not make a graph of its own ({type(e).__name__}: {e})"
                ) from None
        return graph, needed & self.loop.nodes

    def fit(self):
        """(kind, hidden size, the state read as h, W, R, B, linear_before_reset, activation attributes) in ONNX's
        layouts, checked on random values."""
        tf = self.tf
        if len(self.states) not in (1, 2):
            raise NotARecurrentLayer(f"it carries {len(self.states)} states (a layer: 1 or 2)")
        graph, body = self.body_function()
        placeholders = {op.name for op in graph.get_operations() if op.type == "Placeholder"}
        with tf.compat.v1.Session(graph=graph) as sess:
            feeds_extra = {}
            fed = {"twl_probe/x", "twl_probe/lengths"} | {f"twl_probe/state_{k}" for k in range(len(self.states))}
            for name in placeholders - fed:
                t = graph.get_tensor_by_name(name + ":0")
                shape = [2 if d is None else d for d in (t.shape.as_list() if t.shape.rank is not None else [])]
                feeds_extra[t] = np.zeros(shape, t.dtype.as_numpy_dtype)
            inputs, hidden = self._sizes(sess, graph, feeds_extra)
            candidates = [
                graph.get_tensor_by_name(f"{n}:{i}")
                for n in sorted(body)
                for i in range(len(graph.get_operation_by_name(n).outputs))
                if graph.get_operation_by_name(n).outputs[i].dtype == tf.float32
            ]
            targets = [
                graph.get_tensor_by_name(t if ":" in t else t + ":0")
                for t in [v.next for v in self.states] + self.output()
            ]

            def run(x, states, fetches, length=1 << 30):
                feed = dict(feeds_extra)
                feed[graph.get_tensor_by_name("twl_probe/x:0")] = x
                if self.lengths is not None:  # (every step within its sequence, unless length 0)
                    feed[graph.get_tensor_by_name("twl_probe/lengths:0")] = np.full([len(x)], length, np.int32)
                for k, s in enumerate(states):
                    feed[graph.get_tensor_by_name(f"twl_probe/state_{k}:0")] = s
                return sess.run(fetches, feed)

            # Rows: 0 all zeros, then each unit input, then each unit state (every state: a cell's pre-activations
            # read h only; c has no weights).
            rows = 1 + inputs + hidden
            x = np.zeros([rows, inputs], np.float32)
            x[1 : 1 + inputs] = np.eye(inputs)
            h = np.zeros([rows, hidden], np.float32)
            h[1 + inputs :] = np.eye(hidden)
            rng = np.random.RandomState(0)
            xr = rng.standard_normal([5, inputs]).astype(np.float32)
            sr = [rng.standard_normal([5, hidden]).astype(np.float32) for _ in self.states]
            try:
                probes = {}
                for k in range(len(self.states)):  # each state in turn as h, the others zero
                    states = [h if j == k else np.zeros_like(h) for j in range(len(self.states))]
                    probes[k] = run(x, states, candidates)
                random = run(xr, sr, candidates + targets)
                past_the_end = run(xr, sr, targets, length=0) if self.lengths is not None else None
            except Exception as e:  # noqa: BLE001 - TensorFlow's errors
                raise NotARecurrentLayer(f"its body does not run on its own ({type(e).__name__}: {e})") from None
        if past_the_end is not None:
            kept, zeros = past_the_end[: len(self.states)], past_the_end[len(self.states) :]
            if not all(np.array_equal(a, b) for a, b in zip(kept, sr)) or any(np.any(z) for z in zeros):
                raise NotARecurrentLayer("past a sequence's length its step does not keep the states and give zeros")
        got_states = random[len(candidates) : len(candidates) + len(self.states)]
        got_output = random[-1] if self.write is not None else None
        random = random[: len(candidates)]
        for kind, (gates, num_states) in _KINDS.items():
            if num_states != len(self.states):
                continue
            for k in range(num_states):
                fitted = _fit_kind(kind, gates, hidden, inputs, probes[k], random, xr, sr, k, got_states, got_output)
                if fitted is not None:
                    return (kind, hidden, k) + fitted
        raise NotARecurrentLayer(
            "its body is not an LSTM, GRU or basic RNN cell with the activations sigmoid, hard sigmoid, tanh or relu"
        )


def _affine(z, inputs, hidden):
    """(W [I, n], R [H, n], b [n]) of pre-activations z probed on zero, unit-input and unit-state rows."""
    b = z[0]
    return z[1 : 1 + inputs] - b, z[1 + inputs :] - b, b


def _fit_kind(kind, gates, hidden, inputs, probe, random, xr, sr, k, got_states, got_output):
    """(W, R, B, linear_before_reset, activation attributes) in ONNX's layouts if some body tensors are this
    cell's pre-activations and the cell's equations give what the body gave on random values; else None. `k` is
    the state read as h."""
    rows = 1 + inputs + hidden  # (a tensor of the step's batch, not a weight)

    def of_width(width):
        return [(p, r) for p, r in zip(probe, random) if p.shape == (rows, width) and r.shape == (5, width)]

    fit = Fit(hidden, inputs, xr, sr, k, got_states, got_output)
    if kind == "GRU":
        return fit.gru_reset_after(of_width(3 * hidden)) or fit.gru_reset_first(of_width(2 * hidden), of_width(hidden))
    return fit.affine_cell(kind, of_width(gates * hidden))


class Fit:
    """A cell's equations fitted to its body's values: `xr` and `sr` the step's random input and states, what
    the body made of them `got_states` and `got_output` (None: the step writes no output); the candidate
    pre-activations of the probes (rows of zeros, unit inputs and unit states) with their random-input values."""

    def __init__(self, hidden, inputs, xr, sr, k, got_states, got_output):
        self.hidden, self.inputs, self.xr, self.sr, self.k = hidden, inputs, xr, sr, k
        self.got_states, self.got_output = got_states, got_output

    def _agrees(self, new_states, out):
        tol = 1e-4
        return all(_close(a, e, tol) for a, e in zip(new_states, self.got_states)) and _close(
            out, self.got_output, tol, missing_ok=True
        )

    def _block(self, z, g):
        return z[:, g * self.hidden : (g + 1) * self.hidden]

    def affine_cell(self, kind, zs):
        """An LSTM (Keras' or TF1's gate order, any forget bias) or a basic RNN, whose pre-activations are one
        affine z = x W + h R + b."""
        h = self.sr[self.k]
        fitted = []
        for p, r_value in zs:
            w, r, b = _affine(p, self.inputs, self.hidden)
            z = self.xr @ w + h @ r + b
            if _close(z, r_value, 1e-4):
                fitted.append((w, r, b, z))
        if kind == "RNN":
            for (f, g), (w, r, b, z) in itertools.product(_activation_pairs(gates=False), fitted):
                if self._agrees([g[3](z)], g[3](z)):
                    return _onnx([0], self.hidden, w, r, np.concatenate([b, np.zeros_like(b)])) + (
                        False,
                        _attributes(f, g),
                    )
            return None
        c_prev, c_got = self.sr[1 - self.k], self.got_states[1 - self.k]
        # ONNX's i, o, f, c in Keras' (i, f, c, o), TF1's (i, j, f, o)
        orders = ([0, 3, 1, 2], [0, 3, 2, 1])
        for (gate, cell), (w, r, b, z), order in itertools.product(_activation_pairs(), fitted, orders):
            i, o, f, c = (self._block(z, g) for g in order)
            sig, act = gate[3], cell[3]
            forget_bias = 0.0
            if gate is _SIGMOID:  # (TF1's forget_bias, added inside the sigmoid)
                forget_bias = self._forget_bias(f, c_prev, c_got - sig(i) * act(c))
            new_c = sig(f + forget_bias) * c_prev + sig(i) * act(c)
            out = sig(o) * act(new_c)
            if self._agrees([out, new_c] if self.k == 0 else [new_c, out], out):
                b = b.copy()
                b[order[2] * self.hidden : (order[2] + 1) * self.hidden] += forget_bias
                return _onnx(order, self.hidden, w, r, np.concatenate([b, np.zeros_like(b)])) + (
                    False,
                    _attributes(gate, cell),
                )
        return None

    @staticmethod
    def _forget_bias(f, c_prev, kept):
        """The constant added to the forget gate's pre-activation f (TF1's forget_bias) that makes
        sigmoid(f + bias) * c_prev equal `kept`, snapped to 1e-3 when that close (0 when it cannot be told)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = kept / c_prev
        usable = (np.abs(c_prev) > 0.3) & (ratio > 1e-3) & (ratio < 1 - 1e-3)
        if not usable.any():
            return 0.0
        bias = float(np.median(np.log(ratio[usable] / (1 - ratio[usable])) - f[usable]))
        return round(bias, 3) if abs(bias - round(bias, 3)) < 1e-4 else bias

    def gru_reset_after(self, zs):
        """Keras' GRU (reset_after): x Wx + bx and h R + bh apart; ONNX's linear_before_reset."""
        h, hidden = self.sr[self.k], self.hidden
        xs = [_affine(p, self.inputs, hidden) for p, _ in zs]
        wx = [a for a in xs if np.abs(a[1]).max() == 0 and np.abs(a[0]).max() > 0]
        rh = [a for a in xs if np.abs(a[0]).max() == 0 and np.abs(a[1]).max() > 0]
        for (gate, cell), (w, _, bx), (_, r, bh) in itertools.product(_activation_pairs(), wx, rh):
            zx, zh = self.xr @ w + bx, h @ r + bh
            z = gate[3](self._block(zx, 0) + self._block(zh, 0))
            reset = gate[3](self._block(zx, 1) + self._block(zh, 1))
            new_h = z * h + (1 - z) * cell[3](self._block(zx, 2) + reset * self._block(zh, 2))
            if self._agrees([new_h], new_h):
                return _onnx([0, 1, 2], hidden, w, r, np.concatenate([bx, bh])) + (True, _attributes(gate, cell))
        return None

    def gru_reset_first(self, gate_zs, unit_zs):
        """A GRU whose reset gate applies before the recurrent product (ONNX's GRU without linear_before_reset):
        TF1's GRUCell, r, u = f([x, h] Wg + bg) (the gates one tensor 2H wide: `gate_zs`), and Keras' GRU with
        reset_after=False (z and r two tensors H wide, among `unit_zs`); h~ = g(x Wc + (r * h) Rc + bc);
        h' = u h + (1 - u) h~ (ONNX's z = u). Rc's rows are read off the probes with a unit state: there h~'s
        pre-activation is r_j Rc[j] + bc."""
        h, hidden, inputs = self.sr[self.k], self.hidden, self.inputs

        def fitted(p, value):
            w, r, b = _affine(p, inputs, hidden)
            return (w, r, b) if _close(self.xr @ w + h @ r + b, value, 1e-4) else None

        # (the reset gate's probe values, the update gate's (W, R, b), the reset gate's (W, R, b))
        gate_pairs = []
        for p, value in gate_zs:
            affine = fitted(p, value)
            for reset, update in ((0, 1), (1, 0)) if affine else ():  # (r, u) as TF1 splits them, or (u, r)
                cols = [slice(g * hidden, (g + 1) * hidden) for g in (update, reset)]
                gate_pairs.append((p[:, cols[1]], *(tuple(a[..., c] for a in affine) for c in cols)))
        both = []  # affine in x and in h, H wide
        for p, value in unit_zs:
            affine = fitted(p, value)
            if affine and np.abs(affine[0]).max() > 0 and np.abs(affine[1]).max() > 0:
                both.append((p, affine))
        for (_, update), (p_reset, reset) in itertools.permutations(both, 2):
            gate_pairs.append((p_reset, update, reset))
        for (gate, cell), (p_reset, (wu, ru, bu), (wr, rr, br)) in itertools.product(_activation_pairs(), gate_pairs):
            r_rows = gate[3](p_reset)[1 + inputs :]  # r on the unit-state probes
            update, reset = gate[3](self.xr @ wu + h @ ru + bu), gate[3](self.xr @ wr + h @ rr + br)
            for q, _ in unit_zs:
                bc = q[0]
                wcx = q[1 : 1 + inputs] - bc
                with np.errstate(divide="ignore", invalid="ignore"):
                    wch = (q[1 + inputs :] - bc) / np.diag(r_rows)[:, None]
                if not np.all(np.isfinite(wch)):
                    continue
                new_h = update * h + (1 - update) * cell[3](self.xr @ wcx + (reset * h) @ wch + bc)
                if self._agrees([new_h], new_h):
                    w = np.concatenate([wu, wr, wcx], axis=1)
                    r = np.concatenate([ru, rr, wch], axis=1)
                    b = np.concatenate([bu, br, bc, np.zeros(3 * hidden, np.float32)])
                    return _onnx([0, 1, 2], hidden, w, r, b) + (False, _attributes(gate, cell))
        return None


def _close(a, b, tol, missing_ok=False):
    """Whether `b` is `a` within `tol`; True for a missing `b` when missing_ok."""
    if b is None:
        return missing_ok
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol)


def _onnx(blocks, hidden, w, r, b):
    """W [1, G*H, I], R [1, G*H, H], B [1, 2*G*H] in ONNX's gate order from [I, G*H], [H, G*H], [2*G*H] whose
    gate blocks `blocks` are ONNX's gates in order."""
    order = np.concatenate([np.arange(g * hidden, (g + 1) * hidden) for g in blocks])
    bias_order = np.concatenate([order, order + len(order)])
    return (
        np.ascontiguousarray(w[:, order].T[None], np.float32),
        np.ascontiguousarray(r[:, order].T[None], np.float32),
        np.ascontiguousarray(b[bias_order][None], np.float32),
    )


def _length_of(v1, tf, prefix, name):
    """Nodes making `name` the length of the _TwlRnn `prefix`'s sequence: StridedSlice(Shape(y), [0], [1])."""
    int_type = v1.AttrValue(type=tf.int32.as_datatype_enum)
    shape = v1.NodeDef(name=f"{name}/shape", op="Shape", input=[prefix])
    shape.attr["T"].type = tf.float32.as_datatype_enum
    shape.attr["out_type"].CopyFrom(int_type)
    nodes = [shape]
    for suffix, value in (("begin", 0), ("end", 1), ("strides", 1)):
        node = v1.NodeDef(name=f"{name}/{suffix}", op="Const")
        node.attr["dtype"].CopyFrom(int_type)
        node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto([value], tf.int32))
        nodes.append(node)
    length = v1.NodeDef(name=name, op="StridedSlice", input=[n.name for n in nodes])
    length.attr["T"].CopyFrom(int_type)
    length.attr["Index"].CopyFrom(int_type)
    length.attr["shrink_axis_mask"].i = 1
    return nodes + [length]


def _live(g, outputs):
    """The names of the nodes whose values the tensors `outputs` need (control edges aside: a loop's Exits also
    go to a NoOp that only orders what follows after the loop)."""
    live, todo = set(), list(outputs)
    while todo:
        name = parse_input(todo.pop())[0]
        if name not in live and name in g.nodes:
            live.add(name)
            todo.extend(i for i in g.nodes[name].input if not i.startswith("^"))
    return live


def fuse_rnn_loops(tf, graph_def, shapes, outputs):
    """(the nodes to replace: {name: [nodes]}, [(frame name, why)] of the loops left as they are). `shapes(name)`
    is TensorFlow's static shape of a tensor (a list with None for unknown dims, or None); `outputs` are the
    graph's output tensors. A loop left while others were replaced is tried again on the graph with them
    replaced (a dynamic_rnn reading another's output, whose sizes are known only then)."""
    replaced, left, current, fused = {}, [], graph_def, set()
    while True:
        g = _Graph(current)
        live = _live(g, outputs)
        newly, left = {}, []
        for loop in _loops(g):
            if loop.frame in fused:  # (its nodes stay until the caller prunes them)
                continue
            try:
                layer = _Layer(g, loop, tf, shapes, live)
                newly.update(_replacement(tf, g, layer, _fitted_cells(layer)))
                fused.add(loop.frame)
            except NotARecurrentLayer as e:
                left.append((loop.frame, str(e)))
            except (KeyError, ValueError, IndexError, TypeError) as e:  # (a loop this analysis did not foresee)
                left.append((loop.frame, f"it could not be analysed ({type(e).__name__}: {e})"))
        if not newly:
            return replaced, left
        # The replacements so far composed with these: each node of `graph_def` by the nodes it became.
        by_name = {n.name: n for n in current.node}
        for node in graph_def.node:
            became = [m for n in replaced.get(node.name, [node]) for m in newly.get(n.name, [by_name.get(n.name, n)])]
            if len(became) != 1 or became[0] is not node:
                replaced[node.name] = became
        if not left:
            return replaced, left
        current = type(graph_def)()
        current.CopyFrom(graph_def)
        del current.node[:]
        current.node.extend(m for n in graph_def.node for m in replaced.get(n.name, [n]))


def _fitted_cells(layer):
    """[(states with h first, kind, hidden size, W, R, B, linear_before_reset, activation attributes)] of the
    step's cells, bottom first."""
    fitted, below, cells = [], None, layer.cells()
    for number, (states, input_tensor) in enumerate(cells):
        cell = copy.copy(layer)
        cell.states, cell.input_tensor, cell.input_size = states, input_tensor, below
        if number < len(cells) - 1:
            cell.write = None  # (the step's output is the top cell's)
        kind, hidden, h_index, w, r, b, linear_before_reset, activations = cell.fit()
        ordered = [states[h_index]] + [s for j, s in enumerate(states) if j != h_index]
        fitted.append((ordered, kind, hidden, w, r, b, linear_before_reset, activations))
        below = hidden
    return fitted


def _replacement(tf, g, layer, cells):
    """The _TwlRnn nodes (one per stacked cell, each reading the sequence of the one below), their constants
    and initial states, and the nodes that stand for the loop's outputs."""
    v1 = tf.compat.v1
    exit_names = [v.exit.name for v in layer.loop.vars if v.exit is not None]
    base = (exit_names[0] if exit_names else layer.read.name).rsplit("/", 1)[0] + "/twl_rnn"
    float_type = v1.AttrValue(type=tf.float32.as_datatype_enum)
    nodes, replaced = [], {}

    def squeeze(name, source, axis):
        node = v1.NodeDef(name=name, op="Squeeze", input=[source])
        node.attr["T"].CopyFrom(float_type)
        node.attr["squeeze_dims"].list.i.extend([axis])
        return node

    sequence, lengths = layer.sequence, None
    if layer.lengths is not None:
        # TF1 takes any length: past the steps as all of them, below 0 as 0; ONNX's are in [0, steps].
        int_type = v1.AttrValue(type=tf.int32.as_datatype_enum)
        nodes += _length_of(v1, tf, sequence, f"{base}/steps")
        zero = v1.NodeDef(name=f"{base}/zero", op="Const")
        zero.attr["dtype"].CopyFrom(int_type)
        zero.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(0, tf.int32))
        at_most = v1.NodeDef(name=f"{base}/lengths_at_most_steps", op="Minimum", input=[layer.lengths, nodes[-1].name])
        lengths = v1.NodeDef(name=f"{base}/lengths", op="Maximum", input=[at_most.name, zero.name])
        empty = v1.NodeDef(name=f"{base}/empty", op="Equal", input=[lengths.name, zero.name])
        for node in (at_most, lengths, empty):
            node.attr["T"].CopyFrom(int_type)
        nodes += [zero, at_most, lengths, empty]
    for number, (states, kind, hidden, w, r, b, linear_before_reset, activations) in enumerate(cells):
        prefix = base if len(cells) == 1 else f"{base}_{number}"

        def const(suffix, value, dtype=tf.float32, prefix=prefix):
            node = v1.NodeDef(name=f"{prefix}/{suffix}", op="Const")
            node.attr["dtype"].type = dtype.as_datatype_enum
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value, dtype))
            nodes.append(node)
            return node.name

        axis = const("axis0", 0, tf.int32)
        initial = []
        for j, var in enumerate(states):
            node = v1.NodeDef(name=f"{prefix}/initial_{j}", op="ExpandDims", input=[var.init, axis])
            node.attr["T"].CopyFrom(float_type)
            node.attr["Tdim"].type = tf.int32.as_datatype_enum
            nodes.append(node)
            initial.append(node.name)
        rnn = v1.NodeDef(name=prefix, op="_TwlRnn", input=[sequence, const("W", w), const("R", r), const("B", b)])
        rnn.input.extend(initial)
        if lengths is not None:
            rnn.input.append(lengths.name)
        rnn.attr["kind"].s = kind.encode()
        rnn.attr["hidden_size"].i = hidden
        rnn.attr["num_states"].i = len(states)
        rnn.attr["num_lengths"].i = 0 if lengths is None else 1
        rnn.attr["linear_before_reset"].b = linear_before_reset
        if (activations["gate_activation"], activations["activation"]) != ("Sigmoid", "Tanh"):
            rnn.attr["gate_activation"].s = activations["gate_activation"].encode()
            rnn.attr["activation"].s = activations["activation"].encode()
            rnn.attr["activation_alpha"].f = activations["activation_alpha"]
            rnn.attr["activation_beta"].f = activations["activation_beta"]
        nodes.append(rnn)
        for j, var in enumerate(states):
            for exit_ in [var.exit] + [alias.exit for alias, twin in layer.aliases if twin is var]:
                if exit_ is None:
                    continue
                if lengths is None:
                    replaced[exit_.name] = [squeeze(exit_.name, f"{prefix}:{1 + j}", 0)]
                    continue
                # A sequence of length 0 keeps its initial state in TF1 (zeros in ONNX).
                final = squeeze(f"{exit_.name}/twl_final", f"{prefix}:{1 + j}", 0)
                select = v1.NodeDef(name=exit_.name, op="Select", input=[f"{base}/empty", var.init, final.name])
                select.attr["T"].CopyFrom(float_type)
                replaced[exit_.name] = [final, select]
        nodes.append(squeeze(f"{prefix}/sequence", prefix, 1))  # (the next cell's input)
        sequence = nodes[-1].name
    out_exit = layer.out.exit if layer.out is not None else None
    if out_exit is not None:
        for consumer in g.consumers.get(out_exit.name, []):
            if f"^{out_exit.name}" in consumer.input:
                continue  # (ordered after the loop: see below)
            if consumer.op == "TensorArraySizeV3":  # (the length a TensorArray's stack gathers)
                replaced[consumer.name] = _length_of(v1, tf, prefix, consumer.name)
                continue
            if consumer.op == "TensorArrayGatherV3" and layer.all_steps and layer.gathers_all(consumer):
                replaced[consumer.name] = [squeeze(consumer.name, prefix, 1)]
                continue
            if consumer.op != "TensorListStack":
                raise NotARecurrentLayer(f"its output list goes to a {consumer.op}")
            if layer.all_steps:
                replaced[consumer.name] = [squeeze(consumer.name, prefix, 1)]
            else:
                node = v1.NodeDef(name=consumer.name, op="Identity", input=[f"{prefix}:1"])
                node.attr["T"].CopyFrom(float_type)
                replaced[consumer.name] = [node]
    for node in g.graph_def.node:  # control edges from the loop come from the layer instead
        if node.name in layer.loop.nodes or not any(
            i.startswith("^") and i[1:] in layer.loop.nodes for i in node.input
        ):
            continue
        copy = replaced[node.name][-1] if node.name in replaced else v1.NodeDef()
        if node.name not in replaced:
            copy.CopyFrom(node)
            replaced[node.name] = [copy]
        inputs = [i for i in copy.input if not (i.startswith("^") and i[1:] in layer.loop.nodes)]
        copy.input[:] = inputs + ([f"^{prefix}"] if f"^{prefix}" not in inputs else [])
    # The nodes go before the first replaced one (the graph needs no order, but a reader does).
    first = next(n.name for n in g.graph_def.node if n.name in replaced)
    replaced[first] = nodes + replaced[first]
    return replaced
