"""Letterbox, YOLO decoding, NMS, index crops and the detections type: no model needed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.boxes import (
    PAD_VALUE,
    box_iou,
    crop_squares,
    decode_yolo,
    letterbox,
    nested,
    nms,
    rect_size,
    square_boxes,
    to_blob,
)
from vision.cards import CARD_INDEX
from vision.detections import Detections


@pytest.mark.parametrize("shape", [(480, 640), (640, 480), (100, 1000), (640, 640), (37, 53)])
def test_letterbox_fits_the_image_centred_and_maps_boxes_back(shape):
    h, w = shape
    image = np.zeros((h, w, 3), np.uint8)
    image[h // 4: h // 2, w // 4: w // 2] = 255  # a white block at a known place
    padded, fit = letterbox(image, 640)
    assert padded.shape == (640, 640, 3)
    # Padding is split evenly (within a pixel) and filled with Ultralytics' grey.
    assert abs(fit.pad_x - (640 - round(w * fit.ratio)) / 2) <= 0.5
    assert abs(fit.pad_y - (640 - round(h * fit.ratio)) / 2) <= 0.5
    if fit.pad_y >= 1:
        assert (padded[0] == PAD_VALUE).all()
    box = np.array([[w // 4, h // 4, w // 2, h // 2]], np.float32)
    model_box = fit.to_model(box)
    x1, y1, x2, y2 = np.round(model_box[0]).astype(int)
    assert padded[(y1 + y2) // 2, (x1 + x2) // 2].min() > 200  # the block landed where the maths says
    np.testing.assert_allclose(fit.to_image(model_box), box, atol=1e-3)


@given(st.integers(8, 4000), st.integers(8, 4000), st.sampled_from([320, 640]))
@settings(max_examples=200, deadline=None)
def test_rect_size_scales_like_the_square_letterbox_and_pads_at_most_a_stride(h, w, size):
    out_h, out_w = rect_size(h, w, size)
    assert out_h % 32 == 0 and out_w % 32 == 0 and out_h <= size and out_w <= size
    _, square = letterbox(np.zeros((h, w, 3), np.uint8), size)
    padded, rect = letterbox(np.zeros((h, w, 3), np.uint8), (out_h, out_w))
    assert padded.shape == (out_h, out_w, 3)
    assert rect.ratio == pytest.approx(square.ratio)  # the cards are as big as in the square input
    assert out_h - round(h * rect.ratio) <= 32 and out_w - round(w * rect.ratio) <= 32


def test_rect_size_of_camera_frames():
    assert rect_size(720, 1280, 640) == (384, 640)  # 16:9: 40 % fewer pixels than 640x640
    assert rect_size(480, 640, 640) == (480, 640)
    assert rect_size(640, 640, 640) == (640, 640)


def test_letterbox_clips_boxes_to_the_image():
    _, fit = letterbox(np.zeros((100, 200, 3), np.uint8), 320)
    back = fit.to_image(np.array([[-50, -50, 400, 400]], np.float32))
    np.testing.assert_allclose(back, [[0, 0, 200, 100]])


def test_letterbox_rejects_a_grey_image():
    with pytest.raises(ValueError, match="HxWx3"):
        letterbox(np.zeros((10, 10), np.uint8), 64)


def test_blob_is_rgb_nchw_in_unit_range():
    image = np.zeros((2, 3, 3), np.uint8)
    image[..., 0] = 255  # blue in BGR
    blob = to_blob(image)
    assert blob.shape == (1, 3, 2, 3) and blob.dtype == np.float32
    assert blob[0, 2].max() == 1.0 and blob[0, 0].max() == 0.0  # blue ends up in the last channel


def test_decode_turns_centre_boxes_into_corners_and_keeps_best_class():
    out = np.zeros((1, 4 + 3, 2), np.float32)
    out[0, :4, 0] = [50, 40, 20, 10]
    out[0, 4:, 0] = [0.1, 0.8, 0.3]
    out[0, :4, 1] = [10, 10, 4, 4]
    out[0, 4:, 1] = [0.05, 0.02, 0.01]  # below the threshold
    boxes, scores, classes = decode_yolo(out, conf=0.25)
    np.testing.assert_allclose(boxes, [[40, 35, 60, 45]])
    np.testing.assert_allclose(scores, [0.8])
    assert classes.tolist() == [1]


def test_decode_rejects_a_classifier_output():
    with pytest.raises(ValueError, match="not a YOLO detection output"):
        decode_yolo(np.zeros((1, 54)), 0.5)


def test_nms_drops_overlapping_boxes_but_keeps_other_classes():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60], [0, 0, 10, 10]], np.float32)
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    assert nms(boxes, scores, 0.5).tolist() == [0, 2]
    assert nms(boxes, scores, 0.5, class_ids=np.array([0, 0, 0, 1])).tolist() == [0, 2, 3]


boxes_strategy = st.lists(
    st.tuples(st.floats(0, 100), st.floats(0, 100), st.floats(1, 40), st.floats(1, 40), st.floats(0.01, 1)),
    min_size=0, max_size=25)


@settings(max_examples=60, deadline=None)
@given(boxes_strategy, st.floats(0.1, 0.9))
def test_nms_keeps_no_pair_above_the_overlap_limit_and_suppresses_only_by_a_better_box(rows, iou):
    boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in rows], np.float32).reshape(-1, 4)
    scores = np.array([r[4] for r in rows])
    keep = nms(boxes, scores, iou)
    for i, a in enumerate(keep):
        for b in keep[i + 1:]:
            assert box_iou(boxes[a], boxes[[b]])[0] <= iou + 1e-6
    for dropped in set(range(len(rows))) - set(keep.tolist()):
        overlaps = box_iou(boxes[dropped], boxes[keep]) > iou
        assert (scores[keep][overlaps] >= scores[dropped]).any()


def test_a_box_nested_in_a_better_one_of_the_same_card_is_dropped():
    whole = [100, 100, 120, 140]  # an index: rank glyph over suit
    rank_only = [100, 100, 120, 118]  # the rank glyph alone: IoU 0.45, inside 1.0
    assert box_iou(np.array(whole, np.float32), np.array([rank_only], np.float32))[0] < 0.5  # NMS keeps it
    boxes = np.array([whole, rank_only, [300, 300, 320, 340]], np.float32)
    assert nested(boxes, [0.9, 0.6, 0.5], [7, 7, 7], 0.6).tolist() == [True, False, True]
    assert nested(boxes, [0.6, 0.9, 0.5], [7, 7, 7], 0.6).tolist() == [False, True, True]  # the better stays
    assert nested(boxes, [0.9, 0.6, 0.5], [7, 8, 7], 0.6).tolist() == [True, True, True]  # another card
    shifted = [110, 100, 130, 140]  # half of it over the whole index: 0.5 < 0.6
    assert nested(np.array([whole, shifted], np.float32), [0.9, 0.8], [7, 7], 0.6).tolist() == [True, True]
    # only kept boxes drop others: c lies in b, b in a, but c hardly in a
    chain = np.array([[0, 0, 20, 40], [0, 20, 20, 60], [0, 45, 20, 65]], np.float32)
    assert nested(chain, [0.9, 0.8, 0.7], [1, 1, 1], 0.5).tolist() == [True, False, True]
    assert nested(np.zeros((0, 4)), [], [], 0.6).tolist() == []


@settings(max_examples=60, deadline=None)
@given(boxes_strategy, st.floats(0.3, 0.9))
def test_nested_keeps_no_same_card_pair_that_far_inside_and_drops_only_under_a_better_box(rows, overlap):
    boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in rows], np.float32).reshape(-1, 4)
    scores = np.array([r[4] for r in rows])
    labels = np.arange(len(rows)) % 2

    def inside(a, b):
        iw = max(0.0, min(boxes[a, 2], boxes[b, 2]) - max(boxes[a, 0], boxes[b, 0]))
        ih = max(0.0, min(boxes[a, 3], boxes[b, 3]) - max(boxes[a, 1], boxes[b, 1]))
        areas = [(boxes[k, 2] - boxes[k, 0]) * (boxes[k, 3] - boxes[k, 1]) for k in (a, b)]
        return iw * ih / min(areas)

    keep = nested(boxes, scores, labels, overlap)
    kept = np.flatnonzero(keep)
    for i, a in enumerate(kept):
        for b in kept[i + 1:]:
            assert labels[a] != labels[b] or inside(a, b) < overlap + 1e-5
    for dropped in np.flatnonzero(~keep):
        assert any(labels[k] == labels[dropped] and scores[k] >= scores[dropped] and inside(k, dropped) >= overlap - 1e-5
                   for k in kept)


def test_square_boxes_are_centred_on_the_box_with_padding():
    sq = square_boxes(np.array([[10, 20, 30, 60]]), pad=0.25)
    np.testing.assert_allclose(sq, [[-10, 10, 50, 70]])


def test_crop_rectifies_an_index_into_a_square_upright_patch():
    image = np.full((200, 300, 3), 90, np.uint8)
    image[40:80, 100:120] = 255  # a tall white index, 20 x 40 px
    image[40:50, 100:120] = (0, 0, 255)  # red on top: tells up from down
    crops = crop_squares(image, np.array([[100, 40, 120, 80]]), size=64, pad=0.0)
    assert crops.shape == (1, 64, 64, 3)
    crop = crops[0].astype(int)
    # The 40 px side fills the crop: red top quarter, white below, table grey left and right.
    assert crop[4, 32].tolist() == [0, 0, 255]
    assert crop[40, 32].min() == 255
    assert crop[32, 4].tolist() == [90, 90, 90]


def test_crop_past_the_frame_edge_is_letterbox_grey():
    image = np.full((50, 50, 3), 200, np.uint8)
    crops = crop_squares(image, np.array([[0, 0, 10, 10], [60, 60, 80, 80]]), size=16, pad=0.5)
    assert crops[0, -1, -1].tolist() == [200, 200, 200] and crops[0, 0, 0].tolist() == [PAD_VALUE] * 3
    assert (crops[1] == PAD_VALUE).all()  # wholly off the frame


def test_crops_match_the_training_crops_pixel_for_pixel():
    from sim.synth import crops as crops_module
    rng = np.random.default_rng(3)
    image = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
    boxes = np.array([[10.3, 20.7, 30.1, 55.2], [140, 100, 170, 130], [50, 50, 51.5, 53]])
    ours = crop_squares(image, boxes, size=96, pad=crops_module.MARGIN)
    for box, crop in zip(boxes, ours, strict=True):
        np.testing.assert_array_equal(crop, crops_module.square_crop(image, box, 96))


def test_detections_filter_keep_arrays_aligned():
    d = Detections(np.array([[0, 0, 5, 5], [10, 10, 20, 30]]), np.array([0.9, 0.2]),
                   np.array([CARD_INDEX["10h"], CARD_INDEX["RJ"]]),
                   alt_ids=np.array([[CARD_INDEX["10d"]], [CARD_INDEX["BJ"]]]), alt_probs=np.array([[0.05], [0.3]]))
    low = d[d.scores < 0.5]
    assert low.cards == ["RJ"] and low.alternatives(0) == [("BJ", pytest.approx(0.3))]
    rec = d.to_records()
    assert rec[0]["rank"] == "10" and rec[0]["suit"] == "h" and rec[1]["rank"] == "RJ" and rec[1]["suit"] == ""
    assert rec[1]["box"] == [10.0, 10.0, 20.0, 30.0]
    both = Detections.concat([d, Detections.empty()])
    assert len(both) == 2 and both.sizes.tolist() == [5.0, 20.0]
    np.testing.assert_allclose(d.moved(100, 50, 2.0).boxes[0], [100, 50, 110, 60])


def test_detections_reject_misaligned_arrays_and_unknown_classes():
    with pytest.raises(ValueError, match="scores"):
        Detections(np.zeros((2, 4)), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="CARD_IDS"):
        Detections(np.zeros((1, 4)), np.zeros(1), np.array([54]))
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        Detections(np.zeros((2, 3)), np.zeros(2), np.zeros(2))
