"""Regression tests for the differences the s22 sweep of TF1 programs (tests/tf1_programs/p138..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected values are TensorFlow 2.21's)."""

import numpy as np
import pytest
import tensorweave as tw


def test_rnn_cell_zero_state_name_scopes():
    """MultiRNNCell and the wrappers open their own "<Class>ZeroState" scope around their cells' zero states (the
    names ptb_word_lm-style code fed by; p139); a DeviceWrapper places its zero state on its device."""
    cells = tw.nn.rnn_cell
    with tw.Graph().as_default():
        multi = cells.MultiRNNCell([cells.DropoutWrapper(cells.BasicLSTMCell(3)), cells.BasicLSTMCell(3)])
        names = [[t.name for t in s] for s in multi.zero_state(2, tw.float32)]
        concat = cells.MultiRNNCell([cells.GRUCell(3), cells.GRUCell(3)], state_is_tuple=False)
        residual = cells.ResidualWrapper(cells.BasicLSTMCell(3)).zero_state(2, tw.float32)
        device = cells.DeviceWrapper(cells.GRUCell(3), "/cpu:0").zero_state(2, tw.float32)
        assert names == [
            [
                "MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros:0",
                "MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros_1:0",
            ],
            [
                "MultiRNNCellZeroState/BasicLSTMCellZeroState/zeros:0",
                "MultiRNNCellZeroState/BasicLSTMCellZeroState/zeros_1:0",
            ],
        ]
        assert concat.zero_state(2, tw.float32).name == "MultiRNNCellZeroState_1/MultiRNNCellZeroState/zeros:0"
        assert residual.c.name == "ResidualWrapperZeroState/BasicLSTMCellZeroState/zeros:0"
        assert device.name == "DeviceWrapperZeroState/GRUCellZeroState/zeros:0"
        assert device.device == "/device:CPU:0"
