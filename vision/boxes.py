"""Box maths of the detector: letterbox, YOLO output decoding, NMS, index crops.

Pure numpy and OpenCV so that inference never needs torch. The letterbox and the crop
follow what Ultralytics does at training time (grey 114 padding, centred; square crops
resized with bilinear filtering), because a model only reads well what it was fed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike

PAD_VALUE = 114


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model's input: ``model = image * ratio + pad``."""

    ratio: float
    pad_x: float
    pad_y: float
    width: int
    height: int

    def to_image(self, boxes: np.ndarray) -> np.ndarray:
        """Boxes in model input pixels back to (clipped) original image pixels."""
        out = (np.asarray(boxes, np.float32) - [self.pad_x, self.pad_y, self.pad_x, self.pad_y]) / self.ratio
        out[:, [0, 2]] = out[:, [0, 2]].clip(0, self.width)
        out[:, [1, 3]] = out[:, [1, 3]].clip(0, self.height)
        return out

    def to_model(self, boxes: np.ndarray) -> np.ndarray:
        return np.asarray(boxes, np.float32) * self.ratio + [self.pad_x, self.pad_y, self.pad_x, self.pad_y]


def letterbox(image: np.ndarray, size: int | tuple[int, int], most: float | None = None
              ) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio and pad to ``size`` (square int or (h, w)), centred;
    ``most``: enlarge at most this many times (a small image then lies in a wider border)."""
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise ValueError(f"expected an HxWx3 BGR image, got shape {image.shape}")
    out_h, out_w = (size, size) if isinstance(size, int) else size
    h, w = image.shape[:2]
    ratio = min(out_h / h, out_w / w)
    if most is not None:
        ratio = min(ratio, max(most, 1e-6))
    new_w, new_h = max(1, round(w * ratio)), max(1, round(h * ratio))
    if (new_w, new_h) != (w, h):
        interp = cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR
        image = cv2.resize(image, (new_w, new_h), interpolation=interp)
    dw, dh = (out_w - new_w) / 2, (out_h - new_h) / 2
    top, left = round(dh - 0.1), round(dw - 0.1)
    bottom, right = out_h - new_h - top, out_w - new_w - left
    padded = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT,
                                value=(PAD_VALUE,) * 3)
    return padded, Letterbox(ratio, float(left), float(top), w, h)


def rect_size(height: int, width: int, size: int | tuple[int, int], stride: int = 32) -> tuple[int, int]:
    """The (h, w) input for an image of ``height`` x ``width`` on a network that takes any size:
    the image scaled to fit ``size`` as :func:`letterbox` scales it, padded only up to the
    next multiple of ``stride``. A 1280x720 camera frame goes in as 640x384 instead of
    640x640: 40 % fewer pixels, so the finder runs about that much faster."""
    out_h, out_w = (size, size) if isinstance(size, int) else size
    ratio = min(out_h / height, out_w / width)
    # Rounded up, so that the short side never binds the scale that the long side sets.
    fit_h, fit_w = (math.ceil(side * ratio / stride - 1e-9) * stride for side in (height, width))
    return min(out_h, max(stride, fit_h)), min(out_w, max(stride, fit_w))


def to_blob(images: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """BGR uint8 images (same size) to a float32 NCHW RGB batch in [0, 1]."""
    batch = np.stack(images) if isinstance(images, list) else images
    if batch.ndim == 3:
        batch = batch[None]
    return np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def decode_yolo(output: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One image's raw YOLOv8/11 head output ``(4 + nc, anchors)`` to boxes, scores, classes.

    The head gives centre x, centre y, width, height in input pixels, then one sigmoid score
    per class; each anchor keeps its best class.
    """
    out = np.asarray(output)
    if out.ndim == 3:
        out = out[0]
    if out.ndim != 2 or out.shape[0] < 5:
        raise ValueError(f"not a YOLO detection output: shape {np.asarray(output).shape}")
    cls_scores = out[4:]
    class_ids = cls_scores.argmax(axis=0)
    scores = cls_scores[class_ids, np.arange(out.shape[1])]
    keep = scores >= conf
    cx, cy, w, h = out[:4, keep]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes, scores[keep].astype(np.float32), class_ids[keep].astype(np.int64)


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one box against many."""
    row: np.ndarray = iou_matrix(np.asarray(box)[None], boxes)[0]
    return row


def _intersections(boxes_a: ArrayLike, boxes_b: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (len(a), len(b)) intersection areas of two box sets, and each set's areas."""
    a = np.asarray(boxes_a, np.float32).reshape(-1, 4)
    b = np.asarray(boxes_b, np.float32).reshape(-1, 4)
    tl = np.maximum(a[:, None, :2], b[None, :, :2])
    br = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(br - tl, 0, None).prod(axis=2)
    return inter, (a[:, 2:] - a[:, :2]).prod(axis=1), (b[:, 2:] - b[:, :2]).prod(axis=1)


def longer_sides(boxes: ArrayLike) -> np.ndarray:
    """The longer side of each box (N, 4) given as x1, y1, x2, y2."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    return np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])


def iou_matrix(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """IoU of every box in ``a`` against every box in ``b``: an (len(a), len(b)) matrix."""
    inter, area_a, area_b = _intersections(a, b)
    iou: np.ndarray = inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)
    return iou


def nested(boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray, overlap: float) -> np.ndarray:
    """A keep mask that drops each box lying ``overlap`` or more inside (its intersection over
    the smaller box's area) a better-scored kept box of the same label, or holding one that far
    inside. NMS keeps such pairs when their IoU is low: a box on an index's rank glyph alone
    beside the box on the whole index."""
    labels = np.asarray(labels)
    keep = np.ones(len(labels), bool)
    if len(labels) < 2:
        return keep
    inter, area, _ = _intersections(boxes, boxes)
    inside = inter / np.maximum(np.minimum(area[:, None], area[None, :]), 1e-9)
    twins = (inside >= overlap) & (labels[:, None] == labels[None, :])
    order = np.argsort(-np.asarray(scores), kind="stable")
    for rank, i in enumerate(order):
        better = order[:rank]
        if twins[i, better[keep[better]]].any():
            keep[i] = False
    return keep


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float, class_ids: np.ndarray | None = None,
        max_det: int = 300) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, best score first.

    With ``class_ids`` boxes only suppress boxes of their own class (offsetting each class
    far away, as Ultralytics does, gives the same result in one pass).
    """
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if class_ids is not None and len(boxes):
        boxes = boxes + (np.asarray(class_ids, np.float32)[:, None] * (boxes.max() + 1))
    order = np.argsort(-np.asarray(scores), kind="stable")
    keep: list[int] = []
    while order.size and len(keep) < max_det:
        best = order[0]
        keep.append(int(best))
        rest = order[1:]
        order = rest[box_iou(boxes[best], boxes[rest]) <= iou]
    return np.array(keep, dtype=np.int64)


def square_boxes(boxes: np.ndarray, pad: float) -> np.ndarray:
    """Squares around each box's centre, side = longest side x (1 + 2 pad)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    centre = (boxes[:, :2] + boxes[:, 2:]) / 2
    half = (boxes[:, 2:] - boxes[:, :2]).max(axis=1, keepdims=True) * (0.5 + pad)
    return np.concatenate([centre - half, centre + half], axis=1)


def crop_squares(image: np.ndarray, boxes: np.ndarray, size: int, pad: float = 0.15) -> np.ndarray:
    """Square crops around boxes, ``size`` x ``size`` each, as one (N, size, size, 3) batch.

    Each crop is the square of :func:`square_boxes` mapped onto the reader's input with
    sub-pixel precision; past the frame edge it is grey 114. This is the exact recipe the
    synthetic reader crops are cut with (``sim.synth.crops.square_crop``).
    """
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 BGR image, got shape {image.shape}")
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        side = max(x2 - x1, y2 - y1, 1e-3) * (1 + 2 * pad)
        scale = size / side
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        m = np.array([[scale, 0, size / 2 - scale * cx], [0, scale, size / 2 - scale * cy]])
        flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        out[i] = cv2.warpAffine(image, m, (size, size), flags=flags, borderValue=(PAD_VALUE,) * 3)
    return out
